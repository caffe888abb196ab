/**
 * The SQLite wiring libs/passport-adapters/README.md shows ("A database replaced under the process or
 * between starts (restored, deleted): records refused for a while"): `SqliteStoreHistory.check(db, …)`
 * and `new SqliteReplayStore(db, { history })`, nothing more. An older copy of the same database restored
 * between two starts was not noticed: the log-top file is written only by `history.rememberLogTop()`,
 * which the README never calls (the API does, sqlite.store-backend.ts), so a key recorded after the
 * copy was recorded again (a probe: `restore.mjs` in the embedding probe's scratch).
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDatabase, SqliteReplayStore, SqliteStoreHistory } from '@passport/adapters/sqlite';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'passport-readme-restore-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** One start of the README's wiring, recording `keys`; returns each outcome (or the refusal's name). */
async function startAndRecord(keys: string[]): Promise<string[]> {
  const db = SqliteDatabase.open(join(dir, 'passport.db'));
  const history = SqliteStoreHistory.check(db, { holdMs: 331_000 });
  const replay = new SqliteReplayStore(db, { history });
  const now = Date.now();
  const out: string[] = [];
  for (const key of keys) {
    out.push(
      await replay.recordIfAbsent(key, now, now + 300_000).then(
        (o) => (o.recorded ? 'recorded' : 'seen'),
        (e: Error) => e.name,
      ),
    );
  }
  replay.dispose();
  db.close();
  return out;
}

it('an older copy restored between starts refuses records (no used key is recorded again)', async () => {
  await startAndRecord(['tok|K1']);
  copyFileSync(join(dir, 'passport.db'), join(dir, 'backup.db'));
  await startAndRecord(['tok|K2', 'tok|K3', 'tok|K4']);
  copyFileSync(join(dir, 'backup.db'), join(dir, 'passport.db'));
  const [k2] = await startAndRecord(['tok|K2']);
  expect(k2).not.toBe('recorded');
});

it('check writes the log top down on its own while the database runs (a kill -9 keeps what was written)', async () => {
  const db = SqliteDatabase.open(join(dir, 'passport.db'));
  const history = SqliteStoreHistory.check(db, { holdMs: 331_000, rememberLogTopEveryMs: 20 });
  const replay = new SqliteReplayStore(db, { history, commitIntervalMs: 0 });
  const now = Date.now();
  await replay.recordIfAbsent('tok|K1', now, now + 300_000);
  await replay.recordIfAbsent('tok|K2', now, now + 300_000);
  await new Promise((resolve) => setTimeout(resolve, 100));
  // Read before any stop or close: what a process killed now would have left.
  expect(JSON.parse(readFileSync(join(dir, 'store-log-top.passport.db.json'), 'utf8'))).toEqual({
    storeId: db.storeId,
    top: 2,
  });
  replay.dispose();
  db.close(); // stops the timer (history.stop() is done by the close)
});

it('a log-top interval that is not a finite number of 0 or more is refused (NaN wrote the top every 1 ms)', () => {
  const db = SqliteDatabase.open(join(dir, 'passport.db'));
  try {
    for (const every of [Number.NaN, Number.POSITIVE_INFINITY, -1])
      expect(() => SqliteStoreHistory.check(db, { holdMs: 0, rememberLogTopEveryMs: every })).toThrow(
        RangeError,
      );
  } finally {
    db.close();
  }
});
