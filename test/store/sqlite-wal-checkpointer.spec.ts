/**
 * The background WAL checkpoint (`checkpointInBackground`, the API server's setting): a worker thread
 * copies the WAL into the database file at the threshold or within the maximum delay, the committing
 * connection finishes each of the worker's checkpoints so that the WAL restarts, keeps a backstop that
 * bounds the WAL when the worker cannot keep up, closing leaves no
 * connection of the worker behind, and a worker that fails says so while the store keeps working.
 * Observed from outside the worker: the database file's size (pages reach it only by a checkpoint), the
 * WAL file's size, the WAL's removal when the last connection closes.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import {
  SqliteDatabase,
  SqliteReplayStore,
  WAL_AUTOCHECKPOINT_PAGES,
  WAL_BACKSTOP_FACTOR,
  WAL_CHECKPOINT_MAX_DELAY_MS,
} from '@passport/adapters/sqlite';

let dir: string;
let file: string;
const opened: SqliteDatabase[] = [];
function open(
  options: Parameters<typeof SqliteDatabase.open>[1] = { checkpointInBackground: true },
): SqliteDatabase {
  const db = SqliteDatabase.open(file, options);
  opened.push(db);
  return db;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'passport-checkpointer-'));
  file = join(dir, 'passport.db');
});
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Records with random keys, one transaction each, until the WAL has grown by at least `frames` frames. */
function writeFrames(db: SqliteDatabase, replay: SqliteReplayStore, frames: number): void {
  // About five frames per record (a random leaf of the key index, the table, the expiry index, counts).
  for (let i = 0; i < Math.ceil(frames / 4); i++) {
    replay.recordIfAbsentSync(`abcdefghijkl|${randomBytes(16).toString('hex')}`, 1, 1_000_000, {
      owner: `o${i % 100}`,
      maxPerOwner: 100_000,
    });
  }
}

async function until(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const frameBytes = (db: SqliteDatabase) => 24 + (db.statement('PRAGMA page_size').pluck().get() as number);

it('the committing connection checkpoints only at the backstop; the worker copies the WAL into the file at the threshold', async () => {
  const db = open();
  expect(db.statement('PRAGMA wal_autocheckpoint').get()).toEqual({
    wal_autocheckpoint: WAL_AUTOCHECKPOINT_PAGES * WAL_BACKSTOP_FACTOR,
  });
  const replay = new SqliteReplayStore(db, { sweepIntervalMs: 0 });
  const fileBefore = statSync(file).size;
  // Past the threshold, far below the backstop: only the worker can checkpoint this.
  writeFrames(db, replay, WAL_AUTOCHECKPOINT_PAGES * 1.5);
  await until(() => (db.backgroundCheckpoints ?? 0) >= 1);
  expect(statSync(file).size).toBeGreaterThan(fileBefore);
  replay.dispose();
});

it('steady commits with the event loop turning: each background checkpoint is finished by the owner, so the WAL restarts and stays near the threshold, never reaching the backstop', async () => {
  const db = open();
  const replay = new SqliteReplayStore(db, { sweepIntervalMs: 0 });
  let largest = 0;
  // Three times the backstop's worth of frames, in small steps, each followed by a turn of the event
  // loop (where the worker's "checkpointed" message is handled), as a server's commits come.
  const steps = (WAL_AUTOCHECKPOINT_PAGES * WAL_BACKSTOP_FACTOR * 3) / 40;
  for (let i = 0; i < steps; i++) {
    writeFrames(db, replay, 40);
    largest = Math.max(largest, statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0);
    await new Promise((resolve) => setImmediate(resolve));
  }
  replay.dispose();
  expect(db.backgroundCheckpoints).toBeGreaterThanOrEqual(3);
  // The WAL file never grows much past the worker's threshold (it is rewritten from its start after
  // each finished checkpoint; a fast writer like this one adds up to about the threshold again while the
  // worker copies); without the owner's step it grew to the backstop, four times the threshold.
  expect(largest).toBeGreaterThan(WAL_AUTOCHECKPOINT_PAGES * frameBytes(db) * 0.9);
  expect(largest).toBeLessThan(WAL_AUTOCHECKPOINT_PAGES * 3 * frameBytes(db));
});

it('a quiet database: a few commits reach the database file within the maximum delay, not only at the threshold', async () => {
  const db = open();
  const replay = new SqliteReplayStore(db, { sweepIntervalMs: 0 });
  const fileBefore = statSync(file).size;
  writeFrames(db, replay, 40);
  const wroteAt = Date.now();
  await until(() => (db.backgroundCheckpoints ?? 0) >= 1);
  // Loose on a loaded machine, but far below "never" (the threshold is not reached).
  expect(Date.now() - wroteAt).toBeLessThan(WAL_CHECKPOINT_MAX_DELAY_MS + 5000);
  expect(statSync(file).size).toBeGreaterThan(fileBefore);
  replay.dispose();
});

it('commits with no pause (the worker never catches up, the backstop skipped while it runs) never take the WAL past the hard limit', () => {
  // The limit just above the backstop: a WAL passes the backstop by what is committed during the worker's
  // checkpoint in progress (~900 frames here), so without the limit's truncation this overshoots it.
  const hardLimitPages = WAL_AUTOCHECKPOINT_PAGES * WAL_BACKSTOP_FACTOR + 50;
  const db = open({ checkpointInBackground: true, walHardLimitPages: hardLimitPages });
  const replay = new SqliteReplayStore(db, { sweepIntervalMs: 0 });
  let largest = 0;
  // Six times the backstop: it is passed several times, each a chance to overshoot.
  for (let i = 0; i < (WAL_AUTOCHECKPOINT_PAGES * WAL_BACKSTOP_FACTOR * 6) / 4; i++) {
    writeFrames(db, replay, 4);
    largest = Math.max(largest, statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0);
  }
  replay.dispose();
  // One record's frames past the limit at most: the commit that crossed it truncates the WAL.
  expect(largest).toBeGreaterThan(WAL_AUTOCHECKPOINT_PAGES * WAL_BACKSTOP_FACTOR * frameBytes(db) * 0.9);
  expect(largest).toBeLessThanOrEqual((hardLimitPages + 20) * frameBytes(db));
});

it('a reader kept open on another connection: commits past the hard limit stay fast (no wait for the reader), and the failed truncation is reported and retried a second later, not on every commit', () => {
  const errors: string[] = [];
  const hardLimitPages = 300;
  const db = open({
    checkpointInBackground: true,
    walHardLimitPages: hardLimitPages,
    onCheckpointError: (m) => errors.push(m),
  });
  const replay = new SqliteReplayStore(db, { sweepIntervalMs: 0 });
  writeFrames(db, replay, 40);
  // A read transaction that stays open (a backup, an operator's query): the WAL cannot be truncated.
  const reader = open({});
  reader.statement('BEGIN').run();
  reader.statement('SELECT count(*) FROM replay_records').get();
  let slowest = 0;
  for (let i = 0; i < 150; i++) {
    const started = performance.now();
    writeFrames(db, replay, 8);
    slowest = Math.max(slowest, performance.now() - started);
  }
  reader.statement('COMMIT').run();
  replay.dispose();
  expect(statSync(`${file}-wal`).size).toBeGreaterThan(hardLimitPages * frameBytes(db));
  // Each commit took far less than the busy timeout (5 s); before, every one waited it out.
  expect(slowest).toBeLessThan(1000);
  // One attempt, then none for a second: the loop above takes well under a second.
  expect(errors.length).toBeGreaterThanOrEqual(1);
  expect(errors.length).toBeLessThanOrEqual(3);
});

it('a truncation that throws after the commit: the calls of that commit are still answered as recorded, and the error is reported', async () => {
  const errors: string[] = [];
  const db = open({
    checkpointInBackground: true,
    walHardLimitPages: 50,
    onCheckpointError: (m) => errors.push(m),
  });
  const replay = new SqliteReplayStore(db, { sweepIntervalMs: 0 });
  // Fault injection (a disk error during the truncation cannot be produced on demand): the driver's
  // wal_checkpoint(TRUNCATE) throws, as an I/O error would.
  const driver = (db as unknown as { db: { pragma: (sql: string) => unknown } }).db;
  const pragma = driver.pragma.bind(driver);
  driver.pragma = (sql: string) => {
    if (sql.includes('TRUNCATE')) throw new Error('disk I/O error');
    return pragma(sql);
  };
  writeFrames(db, replay, 400); // past the limit
  const keys = Array.from({ length: 10 }, (_, i) => `after-${i}`);
  const outcomes = await Promise.all(keys.map((key) => replay.recordIfAbsent(key, 1000, 86_400_000)));
  expect(outcomes).toEqual(keys.map(() => ({ recorded: true })));
  expect(errors).toContain('disk I/O error');
  replay.dispose();
});

it('close() stops the worker first: this connection is the last, so the WAL is checkpointed and removed as without it', async () => {
  const db = open();
  const replay = new SqliteReplayStore(db, { sweepIntervalMs: 0 });
  // A checkpoint shows the worker's connection is open; then more commits for the close to find.
  writeFrames(db, replay, 40);
  await until(() => (db.backgroundCheckpoints ?? 0) >= 1);
  writeFrames(db, replay, 160);
  replay.dispose();
  expect(existsSync(`${file}-wal`)).toBe(true);
  db.close();
  expect(existsSync(`${file}-wal`)).toBe(false);
  // And the records are in the file.
  const reopened = open({});
  expect(reopened.rowCount('replay_records')).toBe(50);
});

it('close() right after open (the worker not started yet) returns at once and leaves no connection behind', () => {
  const db = open();
  const started = Date.now();
  db.close();
  expect(Date.now() - started).toBeLessThan(5000);
  expect(existsSync(`${file}-wal`)).toBe(false);
});

it('a worker that cannot open the file reports it; the store keeps working and checkpoints at the backstop', async () => {
  const errors: string[] = [];
  const db = open({ checkpointInBackground: true, onCheckpointError: (message) => errors.push(message) });
  // The worker starts on its own thread after open() returns: it finds no file at the path.
  renameSync(file, `${file}.moved`);
  await until(() => errors.length > 0);
  renameSync(`${file}.moved`, file);
  expect(errors[0]).toMatch(/unable to open database file|no such file/i);
  const replay = new SqliteReplayStore(db, { sweepIntervalMs: 0 });
  await expect(replay.recordIfAbsent('after', 1, 100)).resolves.toEqual({ recorded: true });
  writeFrames(db, replay, WAL_AUTOCHECKPOINT_PAGES * WAL_BACKSTOP_FACTOR * 1.5);
  replay.dispose();
  expect(db.backgroundCheckpoints).toBe(0);
  expect(statSync(`${file}-wal`).size).toBeLessThanOrEqual(
    (WAL_AUTOCHECKPOINT_PAGES * WAL_BACKSTOP_FACTOR + 100) * frameBytes(db),
  );
});

it("the worker's checkpoints are not other connections' commits: PRAGMA data_version does not move", async () => {
  const db = open();
  const replay = new SqliteReplayStore(db, { sweepIntervalMs: 0 });
  writeFrames(db, replay, 40);
  const version = db.dataVersion();
  await until(() => (db.backgroundCheckpoints ?? 0) >= 1);
  expect(db.dataVersion()).toBe(version);
  replay.dispose();
});

it('an in-memory database opens no worker', () => {
  const db = SqliteDatabase.open(':memory:', { checkpointInBackground: true });
  expect(db.backgroundCheckpoints).toBeUndefined();
  db.close();
});

// A process crash, not a power loss: the kernel's page cache survives it, so this shows the file intact
// and every answered record kept across a crash (what synchronous=NORMAL promises), not that syncs ran.
it('kill -9 while the worker and the event loop checkpoint under steady writes: the file is intact and every answered record is there', async () => {
  const child = fork(
    join(dirname(fileURLToPath(import.meta.url)), 'support/checkpointing-writer.ts'),
    [file],
    {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const answered: string[] = [];
  let checkpoints = 0;
  child.on('message', (message: { keys: string[]; checkpoints: number }) => {
    answered.push(...message.keys);
    checkpoints = message.checkpoints;
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    // Killed while it writes, after several background checkpoints (each finished by its event loop).
    await until(() => checkpoints >= 3 && answered.length >= 30_000, 60_000);
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
  const db = open({});
  expect(db.statement('PRAGMA integrity_check').pluck().get()).toBe('ok');
  const replay = new SqliteReplayStore(db, { sweepIntervalMs: 0 });
  const missing = answered.filter((key) => replay.recordIfAbsentSync(key, 2000, 86_400_000).recorded);
  expect(missing).toEqual([]);
  expect(db.rowCount('replay_records')).toBeGreaterThanOrEqual(answered.length);
  replay.dispose();
}, 90_000);
