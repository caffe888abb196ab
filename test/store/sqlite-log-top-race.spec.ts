/**
 * Two processes on one data directory (a review of store-log-top.json): a process starting while another
 * runs reads its database's replay-log top, then the file. Between the two reads the running process may
 * append a record and write its (higher) top down (its 10 s timer): the starting process then finds the
 * log "ending below what the directory saw", takes a normal start for a restored copy, holds for
 * SQLITE_LOSS_HOLD_MS and closes every session (reason lost). Reading the file first (what was written
 * down never exceeds the database's top read after it) has no such window.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDatabase, SqliteReplayStore, SqliteStoreHistory } from '@passport/adapters/sqlite';

const HOLD_MS = 331_000;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'passport-logtop-race-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('a start while another process appends and writes its top down is no loss', async () => {
  const now = Date.now();
  const a = SqliteDatabase.openInDataDir(dir);
  const aHistory = SqliteStoreHistory.check(a, { holdMs: HOLD_MS });
  const aReplay = new SqliteReplayStore(a, { history: aHistory, commitIntervalMs: 0, followIntervalMs: 0 });
  expect(await aReplay.recordIfAbsent('a|1', now, now + 300_000)).toEqual({ recorded: true });
  aHistory.rememberLogTop(0);

  const b = SqliteDatabase.openInDataDir(dir);
  // Process A, between B's read of its top and B's read of the file: one more record, and its timer.
  const statement = b.statement.bind(b);
  (b as { statement: SqliteDatabase['statement'] }).statement = ((sql: string) => {
    const real = statement(sql);
    if (!sql.includes('sqlite_sequence')) return real;
    return {
      pluck: () => ({
        get: () => {
          const top = real.pluck().get();
          a.statement('INSERT INTO replay_records (key, first_seen_ms, expires_at_ms) VALUES (?, ?, ?)').run(
            'b|2',
            now,
            now + 300_000,
          );
          aHistory.rememberLogTop(0);
          return top;
        },
      }),
    };
  }) as SqliteDatabase['statement'];
  const losses: string[] = [];
  const bHistory = SqliteStoreHistory.check(b, { holdMs: HOLD_MS, onLoss: (_at, why) => losses.push(why) });
  try {
    expect(losses).toEqual([]);
    expect(bHistory.holdRemainingMs).toBe(0);
  } finally {
    aReplay.dispose();
    aHistory.stop();
    bHistory.stop();
    a.close();
    b.close();
  }
});

/**
 * store-log-top's start read (SqliteStoreHistory.check reads sqlite_sequence) runs before the replay
 * store's whole-log read and its refusal naming the damaged file: a damaged sqlite_sequence page stops
 * the start with SQLite's bare "database disk image is malformed", no file, no way out (a damaged
 * replay_records page gets "the SQLite database … is damaged …: restore it from a backup …").
 */
it('a damaged sqlite_sequence page refuses the start naming the file, as a damaged replay log does', async () => {
  const { openSync, writeSync, closeSync } = await import('node:fs');
  const { default: Database } = await import('better-sqlite3');
  const { createSqliteStoreBackend } =
    await import('../../apps/api/src/platform/store/sqlite.store-backend.js');
  const first = createSqliteStoreBackend(dir);
  await first.replay.recordIfAbsent('a|1', Date.now(), Date.now() + 300_000);
  first.close();
  const file = join(dir, 'passport.db');
  const raw = new Database(file);
  const page = raw
    .prepare("SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_sequence'")
    .pluck()
    .get() as number;
  const pageSize = raw.pragma('page_size', { simple: true }) as number;
  raw.pragma('wal_checkpoint(TRUNCATE)');
  raw.close();
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(16, 0xff), 0, 16, (page - 1) * pageSize);
  closeSync(fd);
  expect(() => createSqliteStoreBackend(dir)).toThrow(/passport\.db is damaged/);
});
