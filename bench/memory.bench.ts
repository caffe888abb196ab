/**
 * Memory of the app and of its replay stores, on each store (memory, sqlite, redis on a redis-server
 * the bench starts), in one run:
 * - the server's RSS idle (started, one request served, 3 s settled);
 * - its RSS under the verify load (wrk, 50 connections, fresh valid lines, MEMORY_LOAD_SECONDS = 10 s):
 *   the peak and the last sample (every 250 ms), and RSS 3 s after the load;
 * - 1M live replay records (MEMORY_REPLAY_RECORDS) written through each adapter in a child process
 *   (bench/support/replay-fill.ts) with the store's cap set to that count: the process's RSS and heap
 *   before and after, the SQLite file's size, and redis-server's own memory.
 * Written into bench/results/latest.json (section `memory`).
 *
 *   npm run bench -- memory
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ROOT, rssMb, startBuiltApp } from './support/built-app.js';
import { recordSuite } from './support/results.js';
import { verifyLoad } from './support/verify-load.js';
import { startRedisServer } from '../test/support/redis-server.js';

const loadSeconds = Number(process.env.MEMORY_LOAD_SECONDS ?? 10);
const replayRecords = Number(process.env.MEMORY_REPLAY_RECORDS ?? 1_000_000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface AppMemory {
  readonly rssIdleMb: number;
  readonly rssUnderVerifyLoadPeakMb: number;
  readonly rssUnderVerifyLoadEndMb: number;
  readonly rssAfterLoadMb: number;
  readonly verifyPerSecond: number;
}

async function appMemory(env: Record<string, string>): Promise<AppMemory> {
  const app = await startBuiltApp(env);
  try {
    const load = await verifyLoad(app); // one verified request: the verify path is loaded
    await sleep(3000);
    const rssIdleMb = rssMb(app.pid);
    const lines = load.makeLines(Math.ceil(loadSeconds * 12_000));
    const samples: number[] = [];
    const sampler = setInterval(() => samples.push(rssMb(app.pid)), 250);
    let result;
    try {
      result = await load.start(lines, loadSeconds);
    } finally {
      clearInterval(sampler);
    }
    await sleep(3000);
    return {
      rssIdleMb,
      rssUnderVerifyLoadPeakMb: Math.max(...samples),
      rssUnderVerifyLoadEndMb: samples.at(-1) ?? NaN,
      rssAfterLoadMb: rssMb(app.pid),
      verifyPerSecond: Math.round(result.rps),
    };
  } finally {
    await app.stop();
  }
}

function fillReplayStore(store: string, redisUrl?: string): Record<string, number | string> {
  const out = execFileSync(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      '@swc-node/register/esm-register',
      path.join(ROOT, 'bench/support/replay-fill.ts'),
      store,
      String(replayRecords),
      ...(redisUrl ? [redisUrl] : []),
    ],
    { cwd: ROOT, env: { ...process.env, SWC_NODE_PROJECT: 'tsconfig.json' }, maxBuffer: 1 << 20 },
  ).toString();
  return JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, number | string>;
}

async function main(): Promise<void> {
  const redis = await startRedisServer();
  const app: Record<string, AppMemory> = {};
  const replay: Record<string, Record<string, number | string>> = {};
  try {
    // Redis last: its million records are not flushed (FLUSHALL takes longer than the helper waits);
    // the server is stopped instead.
    for (const store of ['memory', 'sqlite', 'redis']) {
      const env: Record<string, string> =
        store === 'redis' ? { STORE: 'redis', REDIS_URL: redis.url } : { STORE: store };
      app[store] = await appMemory(env);
      await redis.flush();
      replay[store] = fillReplayStore(store, store === 'redis' ? redis.url : undefined);
    }
  } finally {
    await redis.stop();
  }

  console.log(
    `\nNode ${process.version}; verify load: wrk, 50 connections, ${loadSeconds} s of fresh valid lines\n`,
  );
  console.log(
    '| STORE | RSS idle MiB | RSS under verify load, peak / end MiB | RSS 3 s after MiB | verify req/s |',
  );
  console.log('|---|---|---|---|---|');
  for (const [store, m] of Object.entries(app))
    console.log(
      `| ${store} | ${m.rssIdleMb} | ${m.rssUnderVerifyLoadPeakMb} / ${m.rssUnderVerifyLoadEndMb} | ${m.rssAfterLoadMb} | ${m.verifyPerSecond} |`,
    );
  console.log(
    `\n${replayRecords.toLocaleString('en-US')} live replay records written through each adapter (cap = that count):\n`,
  );
  console.log(
    '| store | records | fill s | process RSS before → after MiB | heap before → after MiB | on disk / in Redis |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const [store, r] of Object.entries(replay)) {
    const elsewhere =
      store === 'sqlite'
        ? `database ${r.databaseMb} MiB`
        : store === 'redis'
          ? `redis used_memory ${r.redisUsedMemoryMbBefore} → ${r.redisUsedMemoryMb} MiB, rss ${r.redisRssMbBefore} → ${r.redisRssMb} MiB`
          : '–';
    console.log(
      `| ${store} | ${r.records} | ${r.fillSeconds} | ${r.rssMbBefore} → ${r.rssMb} | ${r.heapUsedMbBefore} → ${r.heapUsedMb} | ${elsewhere} |`,
    );
  }
  recordSuite('memory', { loadSeconds, replayRecords, app, replay });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
