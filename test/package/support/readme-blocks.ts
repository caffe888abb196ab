/**
 * What the README example suites share: a README's ```ts block found by a marker, and a scratch project
 * that type-checks such blocks as an integrator's would (strict, NodeNext, Node types) against the
 * workspace's sources.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const bin = join(repo, 'node_modules/.bin');

/** The first ```ts block of `readme` (a path from the repository's root) that holds `marker`. */
export function tsBlock(readme: string, marker: string): string {
  const text = readFileSync(join(repo, readme), 'utf8');
  const block = [...text.matchAll(/```ts\n([^]*?)```/g)]
    .map((m) => m[1])
    .find((code) => code.includes(marker));
  if (!block) throw new Error(`${readme}: no block with ${marker}`);
  return block;
}

/**
 * A new scratch directory (an ESM package) whose tsconfig.json checks `files` strictly under NodeNext with
 * the libraries `lib`, the workspace's packages resolved to their sources.
 */
export function exampleProject(prefix: string, files: string[], lib: string[]): string {
  const work = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(work, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  writeFileSync(
    join(work, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        noEmit: true,
        strict: true,
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2022',
        lib,
        types: ['node'],
        typeRoots: [join(repo, 'node_modules/@types')],
        skipLibCheck: true,
        baseUrl: repo,
        paths: {
          '@passport/core': ['libs/passport-core/src/index.ts'],
          '@passport/core/*': ['libs/passport-core/src/*/index.ts'],
          '@passport/adapters/*': ['libs/passport-adapters/src/*/index.ts'],
        },
      },
      files,
    }),
  );
  return work;
}
