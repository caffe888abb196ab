/**
 * A database with one damaged page of the replay log (probe 2026-11-28, operators' data operations:
 * garbage written into a leaf of `replay_records` while the server was stopped; here the first leaf,
 * whole, which health's own probe never reads). The store's constructor reads the whole log and swallows
 * the failure (sqlite-replay.store.ts, "A log that cannot be read … while health reports the store"); every
 * verification then fails closed (503), but health said `ok` from the start until a verification failed,
 * and again a minute after the last one, although the log cannot be read at all. Health must say so
 * from the start (or the start must be refused naming the file).
 */
import { mkdtempSync, openSync, rmSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { FixedClock } from '@passport/core/testing';
import { SqliteDatabase, SqliteReplayStore } from '@passport/adapters/sqlite';
import { SqliteStoreHealthIndicator } from '../../apps/api/src/platform/store/sqlite-store.health-indicator.js';

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'passport-damaged-log-'));
  file = join(dir, 'passport.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('health is not ok at start when a page of the replay log cannot be read', async () => {
  const db = SqliteDatabase.open(file);
  const replay = new SqliteReplayStore(db, { sweepIntervalMs: 0, followIntervalMs: 0 });
  for (let i = 0; i < 400; i++)
    await replay.recordIfAbsent(`abcdefghijkl|${i.toString(16).padStart(32, '0')}`, 1000, 10_000_000);
  replay.dispose();
  db.close();
  const raw = new Database(file);
  raw.pragma('wal_checkpoint(TRUNCATE)');
  const page = raw
    .prepare("SELECT min(pageno) FROM dbstat WHERE name = 'replay_records' AND pagetype = 'leaf'")
    .pluck()
    .get() as number;
  const pageSize = raw.pragma('page_size', { simple: true }) as number;
  raw.close();
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, (page - 1) * pageSize);
  closeSync(fd);

  const check = new Database(file, { readonly: true });
  expect(check.pragma('quick_check', { simple: true })).not.toBe('ok');
  expect(() => check.prepare('SELECT id, key FROM replay_records ORDER BY id').all()).toThrow(/malformed/);
  check.close();
  const reopened = SqliteDatabase.open(file);
  const store = new SqliteReplayStore(reopened, { sweepIntervalMs: 0, followIntervalMs: 0 });
  try {
    // What a verification meets: the store fails closed (kept as it is).
    await expect(store.recordIfAbsent('abcdefghijkl|new', 1000, 10_000_000)).rejects.toBeDefined();
    // A fresh store on the same file, before any verification: health must already say the log is unreadable.
    const fresh = new SqliteReplayStore(reopened, { sweepIntervalMs: 0, followIntervalMs: 0 });
    try {
      const result = await new SqliteStoreHealthIndicator(reopened, fresh, new FixedClock(1000)).check();
      expect(result.ok).toBe(false);
    } finally {
      fresh.dispose();
    }
  } finally {
    store.dispose();
    reopened.close();
  }
});
