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
 * The same copy restored twice (a restore script run again, a second restart from the same backup):
 * the first start closes the copy's sessions (lost) and writes the copy's top down; the second copy
 * brings those sessions back open, and its top equals the file's: no loss is found, and a logout made
 * after the copy is undone again. Redis forgets again when a loss is seen again during the hold; SQLite
 * does not see it.
 */
it('the same older copy restored a second time during the hold keeps the logout made after the copy', async () => {
  const { copyDatabase } = await import('./support/sqlite-files.js');
  const { sampleSessionRecord } = await import('@passport/core/testing');
  const { createSqliteStoreBackend } =
    await import('../../apps/api/src/platform/store/sqlite.store-backend.js');
  const t0 = Date.now();
  const first = createSqliteStoreBackend(dir);
  const loggedOut = sampleSessionRecord(1, { createdAtMs: t0 - 1000, expiresAtMs: t0 + 3_600_000 });
  await first.sessions.create(loggedOut);
  await first.replay.recordIfAbsent('a|1', t0, t0 + 300_000);
  const backup = join(dir, 'backup.db');
  await copyDatabase(join(dir, 'passport.db'), backup);
  await first.replay.recordIfAbsent('b|2', t0, t0 + 300_000);
  expect(await first.sessions.close(loggedOut.sessionId, 'logout', Date.now())).toBe(true);
  first.close();
  const restore = async () => {
    for (const f of ['passport.db', 'passport.db-wal', 'passport.db-shm'])
      rmSync(join(dir, f), { force: true });
    await copyDatabase(backup, join(dir, 'passport.db'));
  };
  const closedAfterStart = async (backend: ReturnType<typeof createSqliteStoreBackend>) => {
    let after = await backend.sessions.get(loggedOut.sessionId);
    for (let i = 0; i < 50 && after?.closedAtMs === null; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      after = await backend.sessions.get(loggedOut.sessionId);
    }
    return after?.closedAtMs !== null;
  };

  await restore();
  const once = createSqliteStoreBackend(dir);
  expect(await closedAfterStart(once)).toBe(true); // caught: closed (lost)
  once.close();

  await restore(); // the same copy again, within the hold
  const twice = createSqliteStoreBackend(dir);
  try {
    expect(await closedAfterStart(twice)).toBe(true);
  } finally {
    twice.close();
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
