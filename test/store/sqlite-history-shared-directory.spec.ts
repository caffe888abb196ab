/**
 * Two SQLite databases in one directory, each wired as libs/passport-adapters/README.md shows
 * (`SqliteStoreHistory.check(db, …)` then `new SqliteReplayStore(db, { history })`). The history files
 * (`store-history.json`, `store-log-top.json`) are named after the directory, not the database, so the
 * second database is taken for "the one the directory remembers, replaced": a loss. A probe (an
 * integrator with tenant-a.db and tenant-b.db in one directory): every HOLA line and login of both was
 * refused for the 331 s hold, again at each start of either.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDatabase, SqliteReplayStore, SqliteStoreHistory } from '@passport/adapters/sqlite';

const HOLD_MS = 331_000;
let dir: string;
const opened: Array<{ db: SqliteDatabase; replay: SqliteReplayStore }> = [];
const losses: string[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'passport-shared-dir-'));
  losses.length = 0;
});
afterEach(() => {
  for (const { db, replay } of opened.splice(0)) {
    replay.dispose();
    db.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

function open(name: string) {
  const db = SqliteDatabase.open(join(dir, `${name}.db`));
  const history = SqliteStoreHistory.check(db, { holdMs: HOLD_MS, onLoss: (_at, why) => losses.push(why) });
  const replay = new SqliteReplayStore(db, { history, followIntervalMs: 0 });
  opened.push({ db, replay });
  return { history, replay };
}

it('a second, new database in the same directory is no loss of the first', async () => {
  const a = open('tenant-a');
  const now = Date.now();
  await expect(a.replay.recordIfAbsent('a|1', now, now + 60_000)).resolves.toEqual({ recorded: true });
  const b = open('tenant-b');
  expect(losses).toEqual([]);
  expect(b.history.problem).toBeUndefined();
  await expect(b.replay.recordIfAbsent('b|1', now, now + 60_000)).resolves.toEqual({ recorded: true });
  await expect(a.replay.recordIfAbsent('a|2', now, now + 60_000)).resolves.toEqual({ recorded: true });
});
