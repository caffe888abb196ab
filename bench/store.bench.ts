/**
 * Throughput of the store adapters on the hot paths: `recordIfAbsent` (every verified HOLA line) and
 * `take` (every rate-limited request), memory vs SQLite (one connection, WAL, synchronous=NORMAL, a file
 * in a temp dir), measured in the same run so the ratio is meaningful. Then the verify path as a loaded
 * server runs it on SQLite: random keys with an owner quota, into a table already holding many records,
 * in batches of the size one event-loop turn forms, reported as CPU µs per record.
 *
 * Run: npx tsx bench/store.bench.ts [--ops N] [--prefill N] [--batch N] [--rounds N]
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MemoryReplayStore, type ReplayStore } from '@passport/core';
import { MemoryRateLimitStore } from '@passport/core/testing';
import { type RateLimitStore } from '@passport/core/ports';
import { SqliteDatabase, SqliteRateLimitStore, SqliteReplayStore } from '@passport/adapters/sqlite';
import { median } from './support/median.js';

const opsArg = process.argv.indexOf('--ops');
const OPS = opsArg > 0 ? Number(process.argv[opsArg + 1]) : 50_000;
const WARMUP = Math.min(5000, OPS / 10);
const numberArg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const PREFILL = numberArg('--prefill', 200_000);
const BATCH = numberArg('--batch', 20);
const ROUNDS = numberArg('--rounds', 5);
const policy = { capacity: 6101, refillPerMs: 1101 / 60_000 };

async function measure(label: string, run: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < WARMUP; i++) await run(-1 - i);
  const started = performance.now();
  for (let i = 0; i < OPS; i++) await run(i);
  const seconds = (performance.now() - started) / 1000;
  const opsPerSecond = OPS / seconds;
  console.log(`${label.padEnd(48)} ${Math.round(opsPerSecond).toLocaleString('en-US').padStart(10)} ops/s`);
  return opsPerSecond;
}

/** Calls kept in flight by the concurrent case, as by a server under load (wrk's 50 connections). */
const IN_FLIGHT = 50;

/**
 * Fresh keys one at a time (every call records: the path of a valid HOLA line), fresh keys with
 * IN_FLIGHT calls outstanding (SQLite decides those of one event-loop turn in one transaction), then one
 * key again (a replay).
 */
async function benchReplay(name: string, store: ReplayStore): Promise<[number, number, number]> {
  const now = 1_700_000_000_000;
  const key = (i: number) => `abcdefghijkl|${i.toString(16).padStart(32, '0')}`;
  const fresh = await measure(`${name} recordIfAbsent (new key)`, (i) =>
    store.recordIfAbsent(key(i), now, now + 86_400_000),
  );
  // Every IN_FLIGHT-th step starts IN_FLIGHT calls at once and waits for all: OPS records in all.
  let next = 10_000_000;
  const concurrent = await measure(`${name} recordIfAbsent (new key, ${IN_FLIGHT} in flight)`, (i) =>
    i % IN_FLIGHT === 0
      ? Promise.all(
          Array.from({ length: IN_FLIGHT }, () => store.recordIfAbsent(key(next++), now, now + 86_400_000)),
        )
      : Promise.resolve(),
  );
  await store.recordIfAbsent('replayed', now, now + 86_400_000);
  const replay = await measure(`${name} recordIfAbsent (replay)`, () =>
    store.recordIfAbsent('replayed', now, now + 86_400_000),
  );
  return [fresh, concurrent, replay];
}

/** 1000 client addresses round robin, with the clock moving 1 ms per take (public-route policy). */
async function benchTake(name: string, store: RateLimitStore): Promise<number> {
  const now = 1_700_000_000_000;
  return measure(`${name} take (1000 keys)`, (i) => store.take(`203.0.113.${i % 1000}`, policy, now + i));
}

/** Senders the records are charged to, each with the default per-sender quota (as verify does). */
const SENDERS = 1000;
const QUOTA_PER_SENDER = 10_000;

/**
 * Fresh random keys (`<sender>|<32 hex>`, as HOLA replay keys are) charged to SENDERS owners with a
 * quota, BATCH calls per event-loop turn, into a table prefilled with PREFILL live records: CPU µs per
 * record (user + system of this process, which includes the WAL checkpoints the commits trigger), per
 * round of OPS records, and write system calls per record (WAL frames, checkpoints); prints the medians.
 */
/** This process's write system calls so far (on this VM each costs ~2 µs: WAL frames are two each). */
function writeSyscalls(): number {
  return Number(/syscw: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? 0);
}

async function benchReplayUnderLoad(db: SqliteDatabase): Promise<number> {
  const store = new SqliteReplayStore(db, { sweepIntervalMs: 0, maxEntries: 10_000_000 });
  const now = 1_700_000_000_000;
  const sender = (i: number) => `s${(i % SENDERS).toString().padStart(11, '0')}`;
  const call = (i: number) => {
    const owner = sender(Math.floor(Math.random() * SENDERS));
    return store.recordIfAbsent(`${owner}|${randomBytes(16).toString('hex')}`, now, now + 86_400_000 + i, {
      owner,
      maxPerOwner: QUOTA_PER_SENDER,
    });
  };
  for (let i = 0; i < PREFILL; i += 500)
    await Promise.all(Array.from({ length: 500 }, (_, j) => call(i + j)));
  const perRecord: number[] = [];
  const writesPerRecord: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.cpuUsage();
    const writesBefore = writeSyscalls();
    for (let i = 0; i < OPS; i += BATCH)
      await Promise.all(Array.from({ length: BATCH }, (_, j) => call(i + j)));
    const used = process.cpuUsage(started);
    perRecord.push((used.user + used.system) / OPS);
    writesPerRecord.push((writeSyscalls() - writesBefore) / OPS);
  }
  store.dispose();
  const perRecordMedian = median(perRecord);
  console.log(
    `sqlite recordIfAbsent (random keys, quota, ${PREFILL} held, ${BATCH} per turn) ${perRecordMedian.toFixed(1)} µs CPU per record (rounds: ${perRecord.map((x) => x.toFixed(1)).join(' ')}), ${median(writesPerRecord).toFixed(2)} write system calls per record`,
  );
  return perRecordMedian;
}

async function main(): Promise<void> {
  console.log(`Node ${process.version}, ${OPS} ops per case after ${WARMUP} warm-up ops\n`);
  const dir = mkdtempSync(join(tmpdir(), 'passport-bench-'));
  const db = SqliteDatabase.openInDataDir(dir);
  try {
    const memReplay = await benchReplay('memory', new MemoryReplayStore({ maxEntries: 1_000_000 }));
    const sqlReplay = await benchReplay('sqlite', new SqliteReplayStore(db, { sweepIntervalMs: 0 }));
    const memTake = await benchTake('memory', new MemoryRateLimitStore());
    const sqlTake = await benchTake('sqlite', new SqliteRateLimitStore(db, { sweepIntervalMs: 0 }));
    console.log('\nratios memory/sqlite (same run):');
    console.log(`  recordIfAbsent new key  ${(memReplay[0] / sqlReplay[0]).toFixed(1)}x`);
    console.log(
      `  recordIfAbsent new key, ${IN_FLIGHT} in flight  ${(memReplay[1] / sqlReplay[1]).toFixed(1)}x`,
    );
    console.log(`  recordIfAbsent replay   ${(memReplay[2] / sqlReplay[2]).toFixed(1)}x`);
    console.log(`  take                    ${(memTake / sqlTake).toFixed(1)}x\n`);
    const underLoadDir = mkdtempSync(join(tmpdir(), 'passport-bench-'));
    const underLoadDb = SqliteDatabase.openInDataDir(underLoadDir);
    try {
      await benchReplayUnderLoad(underLoadDb);
    } finally {
      underLoadDb.close();
      rmSync(underLoadDir, { recursive: true, force: true });
    }
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
