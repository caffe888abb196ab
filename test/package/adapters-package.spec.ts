/**
 * `@passport/adapters` as the repo ships it: one subpath per adapter family, each the index.ts of the
 * folder of that name (as jest and tsconfig paths resolve it); it depends on the core and takes each
 * family's client library as an optional peer; and each subpath loads its own client library only
 * (importing ./ledger loads neither near-api-js nor better-sqlite3). Loads are recorded by module hooks
 * in a child process that imports one subpath.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const adaptersDir = join(repo, 'libs/passport-adapters');
const manifest = JSON.parse(readFileSync(join(adaptersDir, 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

const NEAR_CLIENT = /\/node_modules\/(near-api-js|@near-js\/)/;
const SQLITE_DRIVER = /\/node_modules\/better-sqlite3\//;
const REDIS_CLIENT = /\/node_modules\/ioredis\//;

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'passport-adapters-loads-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The module URLs a fresh process resolves when it imports `specifier` (from source, with tsx). */
async function loadsOf(specifier: string): Promise<string[]> {
  const log = join(work, `${specifier.replace(/\W+/g, '_')}.log`);
  await run(
    process.execPath,
    [
      '--import',
      'tsx',
      '--import',
      join(repo, 'test/support/record-loads.mjs'),
      '--input-type=module',
      '-e',
      `await import(${JSON.stringify(specifier)});`,
    ],
    {
      cwd: repo,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PASSPORT_LOAD_LOG: log },
    },
  );
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

it('is @passport/adapters; every subpath of its exports map is the index.ts of the folder of that name', () => {
  expect(manifest.name).toBe('@passport/adapters');
  const subpaths = Object.keys(manifest.exports)
    .filter((k) => k !== './package.json')
    .map((k) => k.slice(2));
  const folders = readdirSync(join(adaptersDir, 'src'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && readdirSync(join(adaptersDir, 'src', d.name)).includes('index.ts'))
    .map((d) => d.name);
  expect(subpaths.sort()).toEqual(folders.sort());
  expect(subpaths).toEqual(expect.arrayContaining(['caching', 'ledger', 'near', 'redis', 'sqlite', 'sweep']));
});

it('depends on the core; the chain and storage clients are optional peers', () => {
  expect(Object.keys(manifest.dependencies)).toEqual(['@passport/core']);
  for (const peer of ['better-sqlite3', 'ioredis', 'near-api-js']) {
    expect(manifest.peerDependencies[peer]).toBeDefined();
    expect(manifest.peerDependenciesMeta[peer]).toEqual({ optional: true });
  }
});

describe('each subpath loads its own client library only', () => {
  it('./ledger loads neither near-api-js nor better-sqlite3', async () => {
    const loaded = await loadsOf('@passport/adapters/ledger');
    expect(loaded.some((url) => url.includes('/libs/passport-adapters/src/ledger/'))).toBe(true);
    expect(
      loaded.filter((url) => NEAR_CLIENT.test(url) || SQLITE_DRIVER.test(url) || REDIS_CLIENT.test(url)),
    ).toEqual([]);
  });

  it('./caching and ./sweep load neither', async () => {
    for (const specifier of ['@passport/adapters/caching', '@passport/adapters/sweep']) {
      const loaded = await loadsOf(specifier);
      expect(
        loaded.filter((url) => NEAR_CLIENT.test(url) || SQLITE_DRIVER.test(url) || REDIS_CLIENT.test(url)),
      ).toEqual([]);
    }
  });

  it('./sqlite loads better-sqlite3 and not near-api-js', async () => {
    const loaded = await loadsOf('@passport/adapters/sqlite');
    expect(loaded.some((url) => SQLITE_DRIVER.test(url))).toBe(true);
    expect(loaded.filter((url) => NEAR_CLIENT.test(url))).toEqual([]);
  });

  it('./near loads near-api-js and not better-sqlite3', async () => {
    const loaded = await loadsOf('@passport/adapters/near');
    expect(loaded.some((url) => NEAR_CLIENT.test(url))).toBe(true);
    expect(loaded.filter((url) => SQLITE_DRIVER.test(url))).toEqual([]);
  });

  it('./redis loads ioredis and neither near-api-js nor better-sqlite3', async () => {
    const loaded = await loadsOf('@passport/adapters/redis');
    expect(loaded.some((url) => REDIS_CLIENT.test(url))).toBe(true);
    expect(loaded.filter((url) => NEAR_CLIENT.test(url) || SQLITE_DRIVER.test(url))).toEqual([]);
  });
});
