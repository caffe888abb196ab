/**
 * The examples of libs/passport-adapters/README.md, as an integrator copies them: the Redis block (the
 * replay store with its eviction and history watches) against a real redis-server, and the SQLite block
 * (the replay store with its history and removal horizon) on a real file. The core README's examples
 * have readme-examples.spec.ts; these had no test, and a walkthrough ran them by hand. Each block must
 * type-check, run to its end and exit by itself (a watch left polling would hold the process), and the
 * SQLite one leave the log-top file the README names beside the database.
 */
import { execFile } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { bin, exampleProject, tsBlock as readmeBlock } from './support/readme-blocks.js';

const run = promisify(execFile);
const README_DB = '/var/lib/passport/passport.db';

/** The first ```ts block of the adapters README that holds `marker`. */
const tsBlock = (marker: string): string => readmeBlock('libs/passport-adapters/README.md', marker);

let work: string;
let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
  work = exampleProject('passport-adapters-readme-', ['redis-example.ts', 'sqlite-example.ts'], ['ES2023']);
  // Module files: the blocks use top-level await.
  writeFileSync(join(work, 'redis-example.ts'), `${tsBlock('RedisReplayStore(')}\nexport {};\n`);
  const sqlite = tsBlock('SqliteReplayStore(');
  expect(sqlite).toContain(README_DB);
  writeFileSync(
    join(work, 'sqlite-example.ts'),
    `${sqlite.replace(README_DB, join(work, 'passport.db'))}\nexport {};\n`,
  );
}, 60_000);
afterAll(async () => {
  await redis?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

it('the blocks type-check as written', async () => {
  await expect(run(join(bin, 'tsc'), ['-p', 'tsconfig.json'], { cwd: work })).resolves.toMatchObject({
    stdout: '',
  });
}, 120_000);

it('the Redis block runs against a real redis-server and exits by itself (its watches stopped, the client quit)', async () => {
  const { stdout, stderr } = await run(
    join(bin, 'tsx'),
    ['--tsconfig', 'tsconfig.json', 'redis-example.ts'],
    {
      cwd: work,
      env: { ...process.env, REDIS_URL: redis.url },
      timeout: 30_000,
    },
  );
  // A fresh Redis is no loss: onLoss says nothing.
  expect({ stdout, stderr }).toEqual({ stdout: '', stderr: '' });
}, 60_000);

it('the SQLite block runs on a real file, exits by itself and leaves the log-top file the README names', async () => {
  const { stdout, stderr } = await run(
    join(bin, 'tsx'),
    ['--tsconfig', 'tsconfig.json', 'sqlite-example.ts'],
    {
      cwd: work,
      timeout: 30_000,
    },
  );
  expect({ stdout, stderr }).toEqual({ stdout: '', stderr: '' });
  expect(existsSync(join(work, 'passport.db'))).toBe(true);
  expect(existsSync(join(work, 'store-log-top.passport.db.json'))).toBe(true);
}, 60_000);
