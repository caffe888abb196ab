/**
 * The configuration's three lists agree: every variable the server reads (app-config.ts and its
 * concierge.config.ts) is in the
 * README's configuration table, and every variable of that table is in `config/passport.env.example`,
 * which the README says "lists them all" (a review found two missing there).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../apps/api/src/platform/config/app-config.js';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

/** Backticked UPPER_CASE names in the first cell of each row of the README's configuration table. */
function readmeVariables(): Set<string> {
  const section = read('README.md')
    .split(/^## Configuration$/m)[1]
    .split(/^## /m)[0];
  const names = new Set<string>();
  for (const row of section.split('\n').filter((line) => line.startsWith('| `'))) {
    for (const [, name] of row.split(' | ')[0].matchAll(/`([A-Z][A-Z0-9_]*\*?)`/g)) names.add(name);
  }
  return names;
}

const covered = (names: Set<string>, name: string) =>
  names.has(name) || [...names].some((n) => n.endsWith('*') && name.startsWith(n.slice(0, -1)));

describe('configuration documents', () => {
  const readme = readmeVariables();

  it('the README table names every variable the server reads', () => {
    // The configuration's modules: app-config.ts and the ones it reads groups of variables with.
    const modules = ['app-config.ts', 'concierge.config.ts'].map((file) =>
      read(`apps/api/src/platform/config/${file}`),
    );
    const code = new Set(
      modules.flatMap((text) =>
        [...text.matchAll(/'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|PORT|HOST|CHAIN|STORE)'/g)].map(
          ([, name]) => name,
        ),
      ),
    );
    expect(code.size).toBeGreaterThan(50);
    expect([...code].filter((name) => !covered(readme, name))).toEqual([]);
  });

  it('config/passport.env.example lists every variable of the README table', () => {
    const example = new Set(
      [...read('config/passport.env.example').matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map(([, name]) => name),
    );
    expect(readme.size).toBeGreaterThan(40);
    expect([...readme].filter((name) => !covered(example, name.replace(/\*$/, 'DISPLAY_NAME')))).toEqual([]);
  });

  // Found by a probe: the example set MCP_MAX_SESSIONS_PER_ADDRESS=100 uncommented, so a copy that raised
  // MCP_MAX_SESSIONS kept 100 instead of the documented tenth (and HTTP_HEADERS_TIMEOUT_MS=10000 stopped
  // the start of a copy that lowered HTTP_REQUEST_TIMEOUT_MS below it).
  it('config/passport.env.example sets only defaults, and none that derives from another variable', () => {
    const example: Record<string, string> = {};
    for (const [, name, value] of read('config/passport.env.example').matchAll(/^([A-Z][A-Z0-9_]*)=(\S*)/gm))
      example[name] = value;
    expect(loadConfig(example)).toEqual(loadConfig({}));
    const changed = { MCP_MAX_SESSIONS: '50', HTTP_REQUEST_TIMEOUT_MS: '5000' };
    expect(loadConfig({ ...example, ...changed })).toEqual(loadConfig(changed));
  });
});
