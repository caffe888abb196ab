/**
 * An older copy of the very database the data directory had, put back while the server was stopped.
 * Found by a probe of operators' data operations: it has the same identity and older records, so the
 * start took it for the database it knew. 50 of 50 HOLA lines used after the copy verified again, login
 * challenges used after it logged in again, and logouts made after it were undone; health said healthy.
 * The directory now remembers the replay log's highest id (store-log-top.passport.db.json): a start that finds the
 * log ending below it is a loss (the hold), and the sessions created before it are closed (`lost`).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordingPausedError } from '@passport/core/ports';
import { sampleSessionRecord } from '@passport/core/testing';
import { type SqliteReplayStore } from '@passport/adapters/sqlite';
import { copyDatabase, restoreDatabase } from './support/sqlite-files.js';
import { createSqliteStoreBackend } from '../../apps/api/src/platform/store/sqlite.store-backend.js';
import { HOLD_MS, openHistoryStores } from './support/history-stores.js';

/** passport.db's log top, beside it and named after it. */
const LOG_TOP_FILE = 'store-log-top.passport.db.json';
let dir: string;
let now: number;
const losses: string[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'passport-restored-'));
  now = 1_800_000_000_000;
  losses.length = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const start = () => openHistoryStores(dir, () => now, losses);

const record = (replay: SqliteReplayStore, key: string) => replay.recordIfAbsent(key, now, now + 300_000);

const restore = (backup: string): Promise<void> => restoreDatabase(dir, backup);

it('an older copy restored while stopped is a loss: the hold, once; the next starts hold nothing', async () => {
  const first = start();
  expect(await record(first.replay, 'a|1')).toEqual({ recorded: true });
  const backup = join(dir, 'backup.db');
  await copyDatabase(join(dir, 'passport.db'), backup);
  for (const key of ['b|2', 'c|3']) expect(await record(first.replay, key)).toEqual({ recorded: true });
  const storeId = first.db.storeId;
  first.stop();
  const topFile = () => JSON.parse(readFileSync(join(dir, LOG_TOP_FILE), 'utf8'));
  expect(topFile()).toEqual({ storeId, top: 3 });

  await restore(backup);
  const restored = start();
  expect(losses).toEqual([expect.stringContaining('replay log ends at id 1, below id 3 this directory saw')]);
  expect(restored.history.holdRemainingMs).toBe(HOLD_MS);
  // b|2 was used after the copy: never accepted again (refused while the hold lasts, stale after it).
  await expect(record(restored.replay, 'b|2')).rejects.toBeInstanceOf(RecordingPausedError);
  expect(topFile()).toEqual({ storeId, top: 1 });
  restored.stop();

  // Past the hold, a restart finds what it wrote down: no second loss.
  now += HOLD_MS;
  const later = start();
  expect(await record(later.replay, 'd|4')).toEqual({ recorded: true });
  later.stop();
  const again = start();
  expect([losses.length, again.history.holdRemainingMs]).toEqual([1, 0]);
  again.stop();
});

it('a clean stop writes the top down, so a copy made just before the stop is caught too', async () => {
  const first = start();
  const backup = join(dir, 'backup.db');
  await copyDatabase(join(dir, 'passport.db'), backup);
  // Written after the last interval's write (there is none here: interval 0), before the stop.
  expect(await record(first.replay, 'a|1')).toEqual({ recorded: true });
  first.stop();
  await restore(backup);
  const restored = start();
  expect(losses).toEqual([expect.stringContaining('ends at id 0, below id 1')]);
  restored.stop();
});

it('the server: sessions created before the loss are closed (lost), so a logout made after the copy stays', async () => {
  const t0 = Date.now();
  const first = createSqliteStoreBackend(dir);
  const loggedOut = sampleSessionRecord(1, { createdAtMs: t0, expiresAtMs: t0 + 3_600_000 });
  const open = sampleSessionRecord(2, { createdAtMs: t0, expiresAtMs: t0 + 3_600_000 });
  await first.sessions.create(loggedOut);
  await first.sessions.create(open);
  await first.replay.recordIfAbsent('a|1', t0, t0 + 300_000);
  const backup = join(dir, 'backup.db');
  await copyDatabase(join(dir, 'passport.db'), backup);
  await first.replay.recordIfAbsent('b|2', t0, t0 + 300_000);
  expect(await first.sessions.close(loggedOut.sessionId, 'logout', Date.now())).toBe(true);
  first.close();

  /** The logged-out session once a start on the directory has had time to close it. */
  const afterStart = async (backend: ReturnType<typeof createSqliteStoreBackend>) => {
    let after = await backend.sessions.get(loggedOut.sessionId);
    for (let i = 0; i < 50 && after?.closedAtMs === null; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      after = await backend.sessions.get(loggedOut.sessionId);
    }
    return after;
  };

  await restore(backup);
  const restored = createSqliteStoreBackend(dir);
  try {
    expect(await afterStart(restored)).toMatchObject({ closedAtMs: expect.any(Number), closeReason: 'lost' });
    expect(await restored.sessions.get(open.sessionId)).toMatchObject({ closeReason: 'lost' });
    const health = await restored.health.check();
    expect(health.ok).toBe(false);
    expect(JSON.stringify(health.detail)).toContain('lost its replay records');
  } finally {
    restored.close();
  }

  // A review: the same copy restored a second time within the hold was no new loss, and brought the
  // sessions the first start had closed back open. Every start closes those of the last loss recorded.
  await restore(backup);
  const twice = createSqliteStoreBackend(dir);
  try {
    expect(await afterStart(twice)).toMatchObject({ closedAtMs: expect.any(Number), closeReason: 'lost' });
  } finally {
    twice.close();
  }
});
