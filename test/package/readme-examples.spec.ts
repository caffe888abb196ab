/**
 * The embedding examples of the READMEs, as an integrator copies them: the TypeScript block of
 * libs/passport-core/README.md that builds and verifies a HOLA line, and its copy in the root README,
 * are extracted, type-checked (strict, Node types) and run. A walkthrough found them using `seed32`,
 * `timestamp`, `nonceHex` and `chain` without defining any of them; each block now stands alone and
 * prints `true true` (parsed, verified).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(repo, 'node_modules/.bin');

/** The first ```ts block of a file that builds a HOLA line. */
function embeddingBlock(readme: string): string {
  const text = readFileSync(join(repo, readme), 'utf8');
  const block = [...text.matchAll(/```ts\n([^]*?)```/g)]
    .map((m) => m[1])
    .find((code) => code.includes('buildHolaLine({'));
  if (!block) throw new Error(`${readme}: no embedding example`);
  return block;
}

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'passport-readme-examples-'));
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
        lib: ['ES2023', 'DOM'],
        types: ['node'],
        typeRoots: [join(repo, 'node_modules/@types')],
        skipLibCheck: true,
        baseUrl: repo,
        paths: {
          '@passport/core': ['libs/passport-core/src/index.ts'],
          '@passport/core/*': ['libs/passport-core/src/*/index.ts'],
        },
      },
      files: ['core-readme.ts', 'root-readme.ts'],
    }),
  );
  writeFileSync(join(work, 'core-readme.ts'), embeddingBlock('libs/passport-core/README.md'));
  writeFileSync(join(work, 'root-readme.ts'), embeddingBlock('README.md'));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

it('both blocks type-check as written', async () => {
  await expect(run(join(bin, 'tsc'), ['-p', 'tsconfig.json'], { cwd: work })).resolves.toMatchObject({
    stdout: '',
  });
}, 120_000);

it.each(['core-readme.ts', 'root-readme.ts'])(
  '%s runs and verifies its own line',
  async (file) => {
    const { stdout } = await run(join(bin, 'tsx'), ['--tsconfig', 'tsconfig.json', file], { cwd: work });
    expect(stdout).toBe('true true\n');
  },
  60_000,
);
