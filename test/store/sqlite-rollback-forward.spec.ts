/**
 * docs/storage.md "Upgrading and rolling back": from schema 7 to 6 (a 1.2 build) with the documented step
 * (the key's unique index again, user_version 6), and upgrading again, "every replay record, session and
 * logout is kept, and upgrading again keeps the database's identity and rebuilds the log". A probe of
 * 1.8.0 -> 1.2.0 -> 1.8.0: the 6 -> 7 migration copies the rows without their ids, so the log is
 * numbered again from 1; once a schema-6 sweep has deleted expired rows (or the step's de-duplication
 * some), the log's new top is below the one store-log-top.json kept from before the rollback, and the start
 * takes the upgrade for a restored older copy: a 331 s hold (verify and login 503) and every session
 * closed (reason lost), health degraded, with nothing lost.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type SqliteReplayStore } from '@passport/adapters/sqlite';
import { openHistoryStores } from './support/history-stores.js';

let dir: string;
let now: number;
const losses: string[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'passport-rollback-'));
  now = 1_800_000_000_000;
  losses.length = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const start = () => openHistoryStores(dir, () => now, losses);

const record = (replay: SqliteReplayStore, key: string) => replay.recordIfAbsent(key, now, now + 300_000);

it('rolled back to schema 6 as documented, swept there, and upgraded again: no loss, every record kept', async () => {
  const first = start();
  for (const key of ['a|1', 'b|2', 'c|3', 'd|4'])
    expect(await record(first.replay, key)).toEqual({ recorded: true });
  const storeId = first.db.storeId;
  first.stop();

  // The documented 7 -> 6 step, then what a schema-6 build does: its sweep deletes two expired rows and
  // it records one line.
  const raw = new Database(join(dir, 'passport.db'));
  raw.exec(
    'DELETE FROM replay_records WHERE id NOT IN (SELECT max(id) FROM replay_records GROUP BY key); CREATE UNIQUE INDEX replay_records_key ON replay_records (key); PRAGMA user_version = 6;',
  );
  raw.exec("DELETE FROM replay_records WHERE key IN ('a|1', 'b|2')");
  raw
    .prepare('INSERT INTO replay_records (key, first_seen_ms, expires_at_ms, owner) VALUES (?, ?, ?, NULL)')
    .run('e|5', now, now + 300_000);
  raw.close();

  const again = start();
  expect(again.db.storeId).toBe(storeId);
  expect(losses).toEqual([]);
  expect(again.history.holdRemainingMs).toBe(0);
  for (const key of ['c|3', 'd|4', 'e|5'])
    expect(await record(again.replay, key)).toMatchObject({ recorded: false });
  expect(await record(again.replay, 'f|6')).toEqual({ recorded: true });
  again.stop();
});

it('the newest rows deleted under schema 6 (nothing recorded since): the log keeps its numbering, no loss', async () => {
  const first = start();
  for (const key of ['a|1', 'b|2', 'c|3'])
    expect(await record(first.replay, key)).toEqual({ recorded: true });
  first.stop();

  const raw = new Database(join(dir, 'passport.db'));
  raw.exec('CREATE UNIQUE INDEX replay_records_key ON replay_records (key); PRAGMA user_version = 6;');
  raw.exec("DELETE FROM replay_records WHERE key IN ('b|2', 'c|3')");
  raw.close();

  const again = start();
  expect(losses).toEqual([]);
  expect(again.history.holdRemainingMs).toBe(0);
  expect(await record(again.replay, 'a|1')).toMatchObject({ recorded: false });
  expect(await record(again.replay, 'd|4')).toEqual({ recorded: true });
  const ids = again.db
    .statement('SELECT id FROM replay_records ORDER BY id')
    .all()
    .map((row) => (row as { id: number }).id);
  expect(ids).toEqual([1, 4]);
  expect(
    again.db.statement("SELECT name, seq FROM sqlite_sequence WHERE name LIKE 'replay_records%'").all(),
  ).toEqual([{ name: 'replay_records', seq: 4 }]);
  again.stop();
});
