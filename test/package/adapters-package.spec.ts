/**
 * `@passport/adapters` as the repo ships it: one subpath per adapter family, each the index.ts of the
 * folder of that name (as jest and tsconfig paths resolve it); it depends on the core and takes each
 * family's client library as an optional peer; and each subpath loads its own client library only
 * (importing ./ledger loads neither near-api-js nor better-sqlite3). Loads are recorded by module hooks
 * in a child process that imports one subpath.
 */
import { execFile } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
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

/**
 * The packed package's declarations in an integrator's project: the core, Node's types and the client
 * libraries (linked from the repository), the adapters from their tarball, and no
 * `@types/better-sqlite3` (a dev dependency here, not the package's).
 */
describe("the packed declarations in an integrator's project", () => {
  const bin = join(repo, 'node_modules/.bin');
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, npm_config_update_notifier: 'false' };
  let project: string;
  beforeAll(async () => {
    const packOutput = (
      await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: adaptersDir, env })
    ).stdout;
    const tarball = join(work, JSON.parse(packOutput.slice(packOutput.indexOf('[')))[0].filename as string);
    project = join(work, 'integrator');
    const modules = join(project, 'node_modules');
    mkdirSync(join(modules, '@passport/adapters'), { recursive: true });
    mkdirSync(join(modules, '@types'), { recursive: true });
    await run('tar', ['-xzf', tarball, '-C', join(modules, '@passport/adapters'), '--strip-components=1']);
    symlinkSync(join(repo, 'libs/passport-core'), join(modules, '@passport/core'), 'dir');
    symlinkSync(join(repo, 'node_modules/@types/node'), join(modules, '@types/node'), 'dir');
    for (const client of ['better-sqlite3', 'ioredis'])
      symlinkSync(join(repo, 'node_modules', client), join(modules, client), 'dir');
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'integrator', private: true, type: 'module' }),
    );
  }, 120_000);

  /** tsc's output on `source` under strict NodeNext with `skipLibCheck: false` and `options` ('' when clean). */
  async function typeCheck(source: string, options: Record<string, unknown> = {}): Promise<string> {
    writeFileSync(join(project, 'consumer.ts'), source);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          noEmit: true,
          strict: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          types: ['node'],
          skipLibCheck: false,
          ...options,
        },
        files: ['consumer.ts'],
      }),
    );
    const checked = await run(join(bin, 'tsc'), ['-p', 'tsconfig.json'], { cwd: project, env }).catch(
      (error: { stdout: string }) => error,
    );
    return checked.stdout;
  }

  // A probe: they named better-sqlite3's types (`SqliteDatabase.statement()` returned its `Statement`),
  // and every moduleResolution failed with TS7016.
  it('type-check without @types/better-sqlite3 (skipLibCheck false)', async () => {
    const source = [
      "import { SqliteDatabase, SqliteReplayStore, SqliteStoreHistory } from '@passport/adapters/sqlite';",
      "import { RedisReplayStore } from '@passport/adapters/redis';",
      "import { CachingChainReader } from '@passport/adapters/caching';",
      "import { startPeriodicSweep } from '@passport/adapters/sweep';",
      "const db = SqliteDatabase.open(':memory:');",
      "const top = db.statement('SELECT 1').pluck().get() as number;",
      'export const uses: unknown[] = [top, SqliteReplayStore, SqliteStoreHistory, RedisReplayStore, CachingChainReader, startPeriodicSweep];',
      '',
    ].join('\n');
    expect(await typeCheck(source)).toBe('');
  }, 60_000);

  // A probe: the repository README's contract-suite snippet (`{ maxEntries: options?.maxEntries }`)
  // failed with TS2379 under exactOptionalPropertyTypes: an option passed on as it came, perhaps undefined.
  it('take optional values passed on as they came, under exactOptionalPropertyTypes', async () => {
    const source = [
      "import { SqliteDatabase, SqliteReplayStore, SqliteSessionStore, SqliteStoreHistory } from '@passport/adapters/sqlite';",
      "import { CachingChainReader } from '@passport/adapters/caching';",
      "import { MemoryReplayStore, MemorySessionStore, MemoryChainReader } from '@passport/core/memory';",
      "import { createRemovalHorizon } from '@passport/core/ports';",
      'export function open(options?: { maxEntries?: number; holdMs?: number; ttlMs?: number; onLoss?: () => void }) {',
      "  const db = SqliteDatabase.open(':memory:', { busyTimeoutMs: options?.maxEntries });",
      '  const history = SqliteStoreHistory.check(db, { holdMs: 0, now: undefined, onLoss: options?.onLoss });',
      '  return [',
      '    new SqliteReplayStore(db, { maxEntries: options?.maxEntries, history, removalHorizon: createRemovalHorizon({ maxLagMs: options?.ttlMs }) }),',
      '    new SqliteSessionStore(db, { maxEntries: options?.maxEntries }),',
      '    new MemoryReplayStore({ maxEntries: options?.maxEntries }),',
      '    new MemorySessionStore({ maxEntries: options?.maxEntries }),',
      "    new CachingChainReader(new MemoryChainReader({ contractId: 'c', passports: [], accounts: {} }), { ttlMs: options?.ttlMs }),",
      '  ];',
      '}',
      '',
    ].join('\n');
    expect(await typeCheck(source, { exactOptionalPropertyTypes: true })).toBe('');
  }, 60_000);
});
