/**
 * The core's subpaths as the READMEs give them: the core README's table is the one list (a review found
 * the root README's copy had drifted from it), and the root README names each subpath and links there.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '../..');
const read = (path: string) => readFileSync(join(repo, path), 'utf8');

describe('the READMEs list every subpath of @passport/core', () => {
  const manifest = JSON.parse(read('libs/passport-core/package.json')) as {
    exports: Record<string, unknown>;
  };
  const subpaths = Object.keys(manifest.exports)
    .filter((key) => key !== '.' && key !== './package.json' && !key.includes('*'))
    .map((key) => key.slice(2));
  const coreReadme = read('libs/passport-core/README.md');
  const rootList = /Every subpath and what it exports[^]*?\n\n/.exec(read('README.md'))?.[0] ?? '';

  it('the exports map has subpaths, and the root README has its list', () => {
    expect(subpaths.length).toBeGreaterThan(10);
    expect(rootList).toContain('libs/passport-core/README.md');
  });

  it.each(subpaths)('%s: a row of the core README table, and named in the root README', (name) => {
    expect(coreReadme).toContain(`| \`@passport/core/${name}\``);
    expect(rootList).toContain(`\`${name}\``);
  });
});
