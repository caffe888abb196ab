/**
 * A database with one damaged page of the replay log (probe 2026-11-28, operators' data operations:
 * garbage written into a leaf of `replay_records` while the server was stopped; here the first leaf,
 * whole, which health's own probe never reads). The store's constructor reads the whole log and
 * swallowed the failure; every verification then failed closed (503), but health said `ok` from the
 * start until a verification failed, and again a minute after the last one, although the log could not
 * be read at all. Now the damage is noted on the database: health names it from the start and for as
 * long as the connection is open, the server's start is refused naming the file, and damage met later
 * (a page damaged under a running server) stays in health too, not for a minute.
 */
import { mkdtempSync, openSync, rmSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { FixedClock } from '@passport/core/testing';
import { SqliteDatabase, SqliteReplayStore } from '@passport/adapters/sqlite';
import { SqliteStoreHealthIndicator } from '../../apps/api/src/platform/store/sqlite-store.health-indicator.js';
import { createSqliteStoreBackend } from '../../apps/api/src/platform/store/sqlite.store-backend.js';

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'passport-damaged-log-'));
  file = join(dir, 'passport.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const DAMAGED =
  /^database file passport\.db is damaged \(SQLite: database disk image is malformed, SQLITE_CORRUPT, since \d{4}-\d\d-\d\dT[\d:.]+Z\): restore it from a backup as docs\/storage\.md says; sqlite3 passport\.db "PRAGMA integrity_check" names the damage$/;

/** 400 replay records, checkpointed into the file; returns the page numbers of the log's leaves, in order. */
async function fileWithLog(): Promise<{ leaves: number[]; pageSize: number }> {
  const db = SqliteDatabase.open(file);
  const replay = new SqliteReplayStore(db, { sweepIntervalMs: 0, followIntervalMs: 0 });
  for (let i = 0; i < 400; i++)
    await replay.recordIfAbsent(`abcdefghijkl|${i.toString(16).padStart(32, '0')}`, 1000, 10_000_000);
  replay.dispose();
  db.close();
  const raw = new Database(file);
  raw.pragma('wal_checkpoint(TRUNCATE)');
  const leaves = raw
    .prepare("SELECT pageno FROM dbstat WHERE name = 'replay_records' AND pagetype = 'leaf' ORDER BY pageno")
    .pluck()
    .all() as number[];
  const pageSize = raw.pragma('page_size', { simple: true }) as number;
  raw.close();
  expect(leaves.length).toBeGreaterThan(2);
  return { leaves, pageSize };
}

function damagePage(page: number, pageSize: number): void {
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, (page - 1) * pageSize);
  closeSync(fd);
}

it('health is not ok at start when a page of the replay log cannot be read, and says so for as long as it lasts', async () => {
  const { leaves, pageSize } = await fileWithLog();
  damagePage(leaves[0], pageSize);

  const check = new Database(file, { readonly: true });
  expect(check.pragma('quick_check', { simple: true })).not.toBe('ok');
  expect(() => check.prepare('SELECT id, key FROM replay_records ORDER BY id').all()).toThrow(/malformed/);
  check.close();
  const reopened = SqliteDatabase.open(file);
  const store = new SqliteReplayStore(reopened, { sweepIntervalMs: 0, followIntervalMs: 0 });
  try {
    // Before any verification: health already names the damage.
    const atStart = await new SqliteStoreHealthIndicator(reopened, store, new FixedClock(1000)).check();
    expect(atStart).toEqual({
      ok: false,
      detail: { adapter: 'sqlite', latencyMs: expect.any(Number), problem: expect.stringMatching(DAMAGED) },
    });
    // What a verification meets: the store fails closed (kept as it is).
    await expect(store.recordIfAbsent('abcdefghijkl|new', 1000, 10_000_000)).rejects.toMatchObject({
      code: 'SQLITE_CORRUPT',
    });
    // An hour later (store clock and wall clock alike: the write failure's minute is long past), still.
    const later = await new SqliteStoreHealthIndicator(reopened, store, new FixedClock(3_601_000)).check();
    expect(later).toMatchObject({ ok: false, detail: { problem: expect.stringMatching(DAMAGED) } });
    expect(reopened.damaged).toEqual({
      atMs: expect.any(Number),
      code: 'SQLITE_CORRUPT',
      message: 'database disk image is malformed',
    });
  } finally {
    store.dispose();
    reopened.close();
  }
});

it("the server's start is refused on such a file, naming it and the way out", async () => {
  const { leaves, pageSize } = await fileWithLog();
  damagePage(leaves[0], pageSize);
  expect(() => createSqliteStoreBackend(dir)).toThrow(
    `the SQLite database ${file} is damaged (database disk image is malformed, SQLITE_CORRUPT; found reading its replay records): restore it from a backup (docs/storage.md "Upgrading and rolling back"); sqlite3 ${file} "PRAGMA integrity_check" names the damage`,
  );
  // The refused start closed its connection: the file opens again (and is refused again).
  expect(() => createSqliteStoreBackend(dir)).toThrow(/is damaged/);
});

it('damage met after the start (a page damaged under a running server) stays in health, not for a minute', async () => {
  const { leaves, pageSize } = await fileWithLog();
  const db = SqliteDatabase.open(file);
  const store = new SqliteReplayStore(db, { sweepIntervalMs: 0, followIntervalMs: 0 });
  try {
    expect((await new SqliteStoreHealthIndicator(db, store, new FixedClock(1000)).check()).ok).toBe(true);
    // The newest leaf (the one each decision reads its anchor row from) damaged on disk; another
    // connection's commit makes this one drop its cached pages and read the file again.
    damagePage(leaves[leaves.length - 1], pageSize);
    const other = new Database(file);
    other.prepare("INSERT OR REPLACE INTO store_meta (name, value) VALUES ('probe', 'x')").run();
    other.close();
    await expect(store.recordIfAbsent('abcdefghijkl|new', 1000, 10_000_000)).rejects.toMatchObject({
      code: expect.stringMatching(/^SQLITE_CORRUPT/),
    });
    const later = await new SqliteStoreHealthIndicator(db, store, new FixedClock(3_601_000)).check();
    expect(later).toMatchObject({ ok: false, detail: { problem: expect.stringMatching(DAMAGED) } });
  } finally {
    store.dispose();
    db.close();
  }
});
