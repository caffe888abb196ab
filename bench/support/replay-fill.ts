/**
 * Child process of the memory bench: opens one replay store through its adapter, fills it with
 * `count` live records (24 h expiry, charged to 1000 senders, as verified HOLA lines are), and prints
 * one JSON line: this process's RSS and heap before and after (after a GC), and for SQLite the database
 * size on disk. The store's cap is set to `count`, so the fill also shows the cap admits exactly that many.
 *
 *   node --expose-gc --import @swc-node/register/esm-register bench/support/replay-fill.ts <store> <count> [redisUrl]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MemoryReplayStore, type ReplayStore } from '@passport/core';
import { SqliteDatabase, SqliteReplayStore } from '@passport/adapters/sqlite';

const [store, countArg, redisUrl] = process.argv.slice(2);
const count = Number(countArg);
const SENDERS = 1000;
/** Calls in flight while filling (SQLite decides those of one turn together; Redis pipelines them). */
const IN_FLIGHT = 500;
const gc = (globalThis as { gc?: () => void }).gc;

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
function sample() {
  gc?.();
  const m = process.memoryUsage();
  return { rssMb: mb(m.rss), heapUsedMb: mb(m.heapUsed) };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'passport-fill-'));
  let replay: ReplayStore;
  let close: () => Promise<void> | void;
  let extra: () => Promise<Record<string, unknown>> = async () => ({});
  if (store === 'memory') {
    replay = new MemoryReplayStore({ maxEntries: count });
    close = () => undefined;
  } else if (store === 'sqlite') {
    const db = SqliteDatabase.openInDataDir(dir);
    const sqlite = new SqliteReplayStore(db, { maxEntries: count, sweepIntervalMs: 0 });
    replay = sqlite;
    close = () => {
      sqlite.dispose();
      db.close();
    };
    extra = async () => {
      const size = (name: string) => {
        try {
          return statSync(path.join(dir, name)).size;
        } catch {
          return 0;
        }
      };
      return { databaseMb: mb(size('passport.db') + size('passport.db-wal')), records: sqlite.size };
    };
  } else if (store === 'redis') {
    const { Redis } = await import('ioredis');
    const { RedisReplayStore } = await import('@passport/adapters/redis');
    const client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
    const info = async () => {
      const text = await client.info('memory');
      const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
      return { redisUsedMemoryMb: mb(field('used_memory')), redisRssMb: mb(field('used_memory_rss')) };
    };
    const before = await info();
    replay = new RedisReplayStore(client, { prefix: 'bench:', maxEntries: count });
    close = () => client.disconnect();
    extra = async () => {
      const after = await info();
      return {
        redisUsedMemoryMbBefore: before.redisUsedMemoryMb,
        redisUsedMemoryMb: after.redisUsedMemoryMb,
        redisRssMbBefore: before.redisRssMb,
        redisRssMb: after.redisRssMb,
      };
    };
  } else {
    throw new Error(`unknown store ${store}`);
  }

  const before = sample();
  const started = performance.now();
  const now = Date.now();
  const senders = Array.from({ length: SENDERS }, (_, i) =>
    `bench${String(i).padStart(7, '0')}`.slice(0, 12),
  );
  let recorded = 0;
  for (let i = 0; i < count; i += IN_FLIGHT) {
    const calls: Promise<{ recorded: boolean }>[] = [];
    for (let j = i; j < Math.min(count, i + IN_FLIGHT); j++) {
      const sender = senders[j % SENDERS];
      calls.push(
        replay.recordIfAbsent(
          `${sender}|${j.toString(16).toUpperCase().padStart(32, '0')}`,
          now,
          now + 86_400_000,
          {
            owner: sender,
            maxPerOwner: Math.ceil(count / SENDERS),
          },
        ),
      );
    }
    for (const outcome of await Promise.all(calls)) if (outcome.recorded) recorded++;
  }
  const fillSeconds = (performance.now() - started) / 1000;
  const after = sample();
  const details = await extra();
  // Read after the sample, so the store is certainly alive (not collected) when it is taken.
  const storeRecords = (
    replay as { usage?: () => Promise<{ records: number }> | { records: number } }
  ).usage?.();
  console.log(
    JSON.stringify({
      store,
      records: recorded,
      fillSeconds: Math.round(fillSeconds * 10) / 10,
      rssMbBefore: before.rssMb,
      rssMb: after.rssMb,
      heapUsedMbBefore: before.heapUsedMb,
      heapUsedMb: after.heapUsedMb,
      storeRecords: (await storeRecords)?.records,
      ...details,
    }),
  );
  await close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
