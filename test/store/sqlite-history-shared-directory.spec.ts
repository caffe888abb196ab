/**
 * Two SQLite databases in one directory, each wired as libs/passport-adapters/README.md shows
 * (`SqliteStoreHistory.check(db, …)` then `new SqliteReplayStore(db, { history })`). The history files
 * (`store-history.json`, `store-log-top.json`) are named after the directory, not the database, so the
 * second database is taken for "the one the directory remembers, replaced": a loss. A probe (an
 * integrator with tenant-a.db and tenant-b.db in one directory): every HOLA line and login of both was
 * refused for the 331 s hold, again at each start of either.
 *
 * Now each database has its own files, named after it (`store-history.tenant-a.db.json`,
 * `store-log-top.tenant-a.db.json`); the directory's files of 1.8.0 are taken over by the first database
 * to start, so an upgraded DATA_DIR starts without a loss and still notices a deleted database or an
 * older copy; `:memory:` keeps no files.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDatabase, SqliteReplayStore, SqliteStoreHistory } from '@passport/adapters/sqlite';
import { copyDatabase, restoreDatabase } from './support/sqlite-files.js';

const HOLD_MS = 331_000;
let dir: string;
const opened: Array<{ db: SqliteDatabase; replay: SqliteReplayStore }> = [];
const losses: string[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'passport-shared-dir-'));
  losses.length = 0;
});
afterEach(() => {
  closeAll();
  rmSync(dir, { recursive: true, force: true });
});

function closeAll(): void {
  for (const { db, replay } of opened.splice(0)) {
    replay.dispose();
    db.close();
  }
}

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

it("each database's restore detection is its own: the other's writes do not turn it off", async () => {
  const a = open('tenant-a');
  const now = Date.now();
  await a.replay.recordIfAbsent('a|1', now, now + 60_000);
  const backup = join(dir, 'backup-a.sqlite');
  await copyDatabase(join(dir, 'tenant-a.db'), backup);
  await a.replay.recordIfAbsent('a|2', now, now + 60_000);
  const b = open('tenant-b');
  await b.replay.recordIfAbsent('b|1', now, now + 60_000);
  closeAll();
  expect(
    readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort(),
  ).toEqual([
    'store-history.tenant-a.db.json',
    'store-history.tenant-b.db.json',
    'store-log-top.tenant-a.db.json',
    'store-log-top.tenant-b.db.json',
  ]);
  rmSync(join(dir, 'tenant-a.db-wal'), { force: true });
  rmSync(join(dir, 'tenant-a.db-shm'), { force: true });
  await copyDatabase(backup, join(dir, 'tenant-a.db'));
  open('tenant-b');
  expect(losses).toEqual([]);
  const restored = open('tenant-a');
  expect(losses).toEqual([expect.stringContaining('below id 2 this directory saw')]);
  expect(restored.history.holdRemainingMs).toBeGreaterThan(0);
});

it('a database in memory keeps no files (none written to the working directory), and is never a loss', () => {
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    for (let i = 0; i < 2; i++) {
      const db = SqliteDatabase.open(':memory:');
      const history = SqliteStoreHistory.check(db, {
        holdMs: HOLD_MS,
        onLoss: (_at, why) => losses.push(why),
      });
      expect(history.problem).toBeUndefined();
      history.stop();
      db.close();
    }
  } finally {
    process.chdir(cwd);
  }
  expect(readdirSync(dir)).toEqual([]);
  expect(losses).toEqual([]);
});

describe("a DATA_DIR of 1.8.0 (passport.db, the directory's store-history.json and store-log-top.json)", () => {
  /** Runs passport.db as 1.8.0 did: its files renamed to the directory's names of then. */
  async function dataDirOf180(): Promise<{ storeId: string; backup: string }> {
    const db = SqliteDatabase.openInDataDir(dir);
    const history = SqliteStoreHistory.check(db, { holdMs: HOLD_MS });
    const replay = new SqliteReplayStore(db, { history, commitIntervalMs: 0, followIntervalMs: 0 });
    const now = Date.now();
    await replay.recordIfAbsent('k|1', now, now + 300_000);
    const backup = join(dir, 'backup.sqlite');
    await copyDatabase(join(dir, 'passport.db'), backup);
    for (const key of ['k|2', 'k|3']) await replay.recordIfAbsent(key, now, now + 300_000);
    const storeId = db.storeId;
    replay.dispose();
    db.close();
    renameSync(join(dir, 'store-history.passport.db.json'), join(dir, 'store-history.json'));
    renameSync(join(dir, 'store-log-top.passport.db.json'), join(dir, 'store-log-top.json'));
    expect(JSON.parse(readFileSync(join(dir, 'store-log-top.json'), 'utf8'))).toEqual({ storeId, top: 3 });
    return { storeId, backup };
  }

  function startOnDataDir() {
    const db = SqliteDatabase.openInDataDir(dir);
    const history = SqliteStoreHistory.check(db, { holdMs: HOLD_MS, onLoss: (_at, why) => losses.push(why) });
    const replay = new SqliteReplayStore(db, { history, followIntervalMs: 0 });
    opened.push({ db, replay });
    return { db, history, replay };
  }

  it("starts without a loss, the files taken over under the database's names", async () => {
    const { storeId } = await dataDirOf180();
    const started = startOnDataDir();
    expect(losses).toEqual([]);
    expect(started.history.problem).toBeUndefined();
    expect(existsSync(join(dir, 'store-history.json'))).toBe(false);
    expect(existsSync(join(dir, 'store-log-top.json'))).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, 'store-history.passport.db.json'), 'utf8')).storeId).toBe(
      storeId,
    );
    expect(JSON.parse(readFileSync(join(dir, 'store-log-top.passport.db.json'), 'utf8'))).toEqual({
      storeId,
      top: 3,
    });
  });

  it('an older copy restored after the upgrade is a loss', async () => {
    const { backup } = await dataDirOf180();
    startOnDataDir();
    closeAll();
    await restoreDatabase(dir, backup);
    const restored = startOnDataDir();
    expect(losses).toEqual([expect.stringContaining('below id 3 this directory saw')]);
    expect(restored.history.holdRemainingMs).toBeGreaterThan(0);
  });

  it('an older copy restored with the upgrade (before its first start) is a loss', async () => {
    const { backup } = await dataDirOf180();
    await restoreDatabase(dir, backup);
    startOnDataDir();
    expect(losses).toEqual([expect.stringContaining('below id 3 this directory saw')]);
  });

  it('the database deleted after the upgrade is a loss', async () => {
    await dataDirOf180();
    startOnDataDir();
    closeAll();
    for (const f of ['passport.db', 'passport.db-wal', 'passport.db-shm'])
      rmSync(join(dir, f), { force: true });
    const fresh = startOnDataDir();
    expect(losses).toEqual([expect.stringContaining('is not the one')]);
    expect(fresh.history.holdRemainingMs).toBeGreaterThan(0);
  });
});
