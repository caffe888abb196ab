/**
 * The ReplayStore contract (@passport/core/testing) against every adapter this repo ships (the core's
 * memory adapter, SQLite on a temp file), and what only a database file allows: processes racing on it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { describeReplayStoreContract } from '@passport/core/testing';
import { SqliteDatabase, SqliteReplayStore } from '@passport/adapters/sqlite';
import { copyDatabase, countLogRowsRead } from './support/sqlite-files.js';
import { replayAdapters } from './support/store-adapters.js';
import { runContenders } from './support/contenders.js';

const framework = { describe, it, expect, beforeEach, afterEach };

for (const adapter of replayAdapters) describeReplayStoreContract(framework, adapter);

describe('ReplayStore (sqlite): processes on one file', () => {
  const sqlite = replayAdapters.find((a) => a.name === 'sqlite')!;
  let h: ReturnType<typeof sqlite.open>;
  beforeEach(() => {
    h = sqlite.open();
  });
  afterEach(() => h.close());

  it('three processes racing over 300 keys: each key is recorded exactly once in total', async () => {
    const reports = await runContenders<{ recorded: string[] }>(3, [h.file as string, 'replay', '300', '2']);
    const all = reports.flatMap((r) => r.recorded);
    expect(all).toHaveLength(300);
    expect(new Set(all).size).toBe(300);
    expect(await h.size()).toBe(300);
  });

  it('three processes racing over 300 keys, each deciding its calls in batches: each key is recorded exactly once', async () => {
    const reports = await runContenders<{ recorded: string[] }>(3, [
      h.file as string,
      'replay-batch',
      '300',
      '2',
    ]);
    const all = reports.flatMap((r) => r.recorded);
    expect(all).toHaveLength(300);
    expect(new Set(all).size).toBe(300);
    expect(await h.size()).toBe(300);
  });
});

describe('ReplayStore (sqlite): caps hold exactly across processes deciding in batches', () => {
  const sqlite = replayAdapters.find((a) => a.name === 'sqlite')!;
  let h: ReturnType<typeof sqlite.open>;
  beforeEach(() => {
    h = sqlite.open();
  });
  afterEach(() => h.close());

  type Report = { recorded: number; refused: Record<string, number> };
  const total = (reports: Report[], pick: (r: Report) => number) => reports.reduce((n, r) => n + pick(r), 0);

  it('three processes charging one owner with a quota of 90: exactly 90 recorded, every other call refused', async () => {
    const reports = await runContenders<Report>(3, [
      h.file as string,
      'replay-capped',
      '150',
      '90',
      '1000000',
    ]);
    expect(total(reports, (r) => r.recorded)).toBe(90);
    expect(total(reports, (r) => r.refused.REPLAY_QUOTA_EXCEEDED ?? 0)).toBe(360);
    expect(await h.size()).toBe(90);
  });

  it('three processes filling a store capped at 90: exactly 90 recorded, every other call refused', async () => {
    const reports = await runContenders<Report>(3, [
      h.file as string,
      'replay-capped',
      '150',
      '1000000',
      '90',
    ]);
    expect(total(reports, (r) => r.recorded)).toBe(90);
    expect(total(reports, (r) => r.refused.REPLAY_STORE_FULL ?? 0)).toBe(360);
    expect(await h.size()).toBe(90);
  });
});

describe('ReplayStore (sqlite): calls of one event-loop turn share one transaction', () => {
  let dir: string;
  let db: SqliteDatabase;
  let store: SqliteReplayStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'replay-batch-'));
    db = SqliteDatabase.open(join(dir, 'passport.db'), { busyTimeoutMs: 50 });
    store = new SqliteReplayStore(db, { sweepIntervalMs: 0, maxEntries: 3 });
  });
  afterEach(() => {
    store.dispose();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('each call in a batch gets its own outcome: recorded, replay of a key earlier in the batch, full', async () => {
    const results = await Promise.allSettled([
      store.recordIfAbsent('a', 1000, 60_000),
      store.recordIfAbsent('a', 1001, 60_000),
      store.recordIfAbsent('b', 1002, 60_000),
      store.recordIfAbsent('c', 1003, 60_000),
      store.recordIfAbsent('d', 1004, 60_000),
    ]);
    expect(
      results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as { code: string }).code)),
    ).toEqual([
      { recorded: true },
      { recorded: false, firstSeenAtMs: 1000 },
      { recorded: true },
      { recorded: true },
      'REPLAY_STORE_FULL',
    ]);
    expect(store.size).toBe(3);
    expect(store.usage().refusedFull).toBe(1);
  });

  it("of calls in one batch with a key whose record expired, one is recorded: the batch's new record counts, not the index's expired one", async () => {
    await store.recordIfAbsent('k', 1000, 2000);
    // 5000: the old record has expired, but is still in the index (within the minute's grace).
    const results = await Promise.allSettled([
      store.recordIfAbsent('k', 5000, 60_000),
      store.recordIfAbsent('k', 5001, 60_000),
      store.recordIfAbsent('k', 5002, 60_000),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : r.reason))).toEqual([
      { recorded: true },
      { recorded: false, firstSeenAtMs: 5000 },
      { recorded: false, firstSeenAtMs: 5000 },
    ]);
    expect(store.size).toBe(1);
  });

  it("an owner's quota counts the batch's own records, and its expired records make room mid-batch", async () => {
    const quoted = new SqliteReplayStore(db, { sweepIntervalMs: 0, expiredGraceMs: 0 });
    const o = { owner: 'o', maxPerOwner: 2 };
    await quoted.recordIfAbsent('expired', 100, 500, o);
    const results = await Promise.allSettled([
      quoted.recordIfAbsent('n1', 1000, 60_000, o),
      quoted.recordIfAbsent('p1', 1000, 60_000, { owner: 'p', maxPerOwner: 2 }),
      quoted.recordIfAbsent('n2', 1001, 60_000, o), // the expired record is dropped to make room
      quoted.recordIfAbsent('n3', 1002, 60_000, o),
      quoted.recordIfAbsent('n1', 1003, 60_000, o),
      quoted.recordIfAbsent('p2', 1004, 60_000, { owner: 'p', maxPerOwner: 2 }),
      quoted.recordIfAbsent('p3', 1005, 60_000, { owner: 'p', maxPerOwner: 2 }),
    ]);
    expect(
      results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as { code: string }).code)),
    ).toEqual([
      { recorded: true },
      { recorded: true },
      { recorded: true },
      'REPLAY_QUOTA_EXCEEDED',
      { recorded: false, firstSeenAtMs: 1000 },
      { recorded: true },
      'REPLAY_QUOTA_EXCEEDED',
    ]);
    expect(quoted.size).toBe(4);
    quoted.dispose();
  });

  it('an owner at its bound sweeps expired records of every owner through the expiry index, never a live one, and the counts stay exact', async () => {
    const quoted = new SqliteReplayStore(db, { sweepIntervalMs: 0, expiredGraceMs: 0 });
    const o = { owner: 'o', maxPerOwner: 2 };
    const p = { owner: 'p', maxPerOwner: 5 };
    await Promise.all([
      quoted.recordIfAbsent('o-expired', 100, 500, o),
      quoted.recordIfAbsent('o-live', 100, 60_000, o),
      quoted.recordIfAbsent('p-expired-1', 100, 400, p),
      quoted.recordIfAbsent('p-expired-2', 100, 900, p),
      quoted.recordIfAbsent('p-live', 100, 60_000, p),
      quoted.recordIfAbsent('nobody-expired', 100, 700),
      quoted.recordIfAbsent('nobody-live', 100, 60_000),
    ]);
    // o is at its bound (2, one expired): the sweep makes room, taking every expired record with it.
    expect(await quoted.recordIfAbsent('o-new', 1000, 60_000, o)).toEqual({ recorded: true });
    const keys = db.statement('SELECT key FROM replay_records ORDER BY key').pluck().all();
    expect(keys).toEqual(['nobody-live', 'o-live', 'o-new', 'p-live']);
    expect(db.rowCount('replay_records')).toBe(4);
    expect(db.statement('SELECT owner, n FROM replay_owner_counts ORDER BY owner').all()).toEqual([
      { owner: 'o', n: 2 },
      { owner: 'p', n: 1 },
    ]);
    // Both live records of o still count: the next one is refused, and the live ones are still replays.
    await expect(quoted.recordIfAbsent('o-newer', 1000, 60_000, o)).rejects.toMatchObject({
      code: 'REPLAY_QUOTA_EXCEEDED',
    });
    expect(await quoted.recordIfAbsent('o-live', 1000, 60_000, o)).toEqual({
      recorded: false,
      firstSeenAtMs: 100,
    });
    // The sweep reads the expiry index (no scan of the table, which no longer has an index by owner).
    const plan = db
      .statement('EXPLAIN QUERY PLAN DELETE FROM replay_records WHERE expires_at_ms <= ? RETURNING key')
      .all(1000) as { detail: string }[];
    expect(plan.map((row) => row.detail).join('; ')).toMatch(/USING (COVERING )?INDEX replay_records_expiry/);
    quoted.dispose();
  });

  // Left open by earlier sessions: busy_timeout waits on the event loop, so while another process held
  // the write lock (paused in a commit, an operator's shell inside BEGIN IMMEDIATE) every request of this
  // one stalled for up to the busy timeout on each write attempt.
  it('while another connection holds the write lock the calls wait on timers, the event loop free, and are decided once it is free', async () => {
    // A busy timeout far above the wait (a probe under CPU load: a 2 ms interval's ticks, counted against
    // a lock let go 30 ms on, within a 50 ms busy timeout, came short; a process descheduled runs its late
    // timers in one pass). Calls waiting on this thread would still fail when it passed.
    const patientDb = SqliteDatabase.open(join(dir, 'passport.db'), { busyTimeoutMs: 1000 });
    const patient = new SqliteReplayStore(patientDb, { sweepIntervalMs: 0 });
    const locker = SqliteDatabase.open(join(dir, 'passport.db'));
    const release = holdWriteLock(locker);
    // The lock is let go from a timer's fifth tick: calls waiting on this thread would keep that timer
    // from running, and fail when the busy timeout passed.
    let ticks = 0;
    const ticker = setInterval(() => {
      if (++ticks === 5) release();
    }, 2);
    try {
      const outcomes = await Promise.allSettled([
        patient.recordIfAbsent('x', 1000, 60_000),
        patient.recordIfAbsent('y', 1000, 60_000),
      ]);
      expect(outcomes).toEqual([
        { status: 'fulfilled', value: { recorded: true } },
        { status: 'fulfilled', value: { recorded: true } },
      ]);
      expect(ticks).toBeGreaterThanOrEqual(5);
      expect(patient.lastFailureAtMs).toBeNull();
      expect(patientDb.lastWriteFailure).toBeNull();
    } finally {
      clearInterval(ticker);
      if (locker.inTransaction) release();
      locker.close();
      patient.dispose();
      patientDb.close();
    }
  });

  it('a batch whose transaction cannot run fails every call in it and records none of them', async () => {
    // Another connection holds the write lock while the batch is decided (busy beyond the timeout).
    const locker = SqliteDatabase.open(join(dir, 'passport.db'));
    const release = holdWriteLock(locker);
    const settled = await Promise.allSettled([
      store.recordIfAbsent('x', 1000, 60_000),
      store.recordIfAbsent('y', 1000, 60_000),
    ]);
    release();
    expect(settled.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(store.lastFailureAtMs).toBe(1000);
    expect(store.size).toBe(0);
    expect(await store.recordIfAbsent('x', 2000, 60_000)).toEqual({ recorded: true });
    locker.close();
  });
});

describe('ReplayStore (sqlite): group commits spaced by the commit interval', () => {
  let dir: string;
  let db: SqliteDatabase;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'replay-interval-'));
    db = SqliteDatabase.open(join(dir, 'passport.db'));
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Counts the write transactions the store opens (each group commit is one). */
  function countCommits(): { readonly count: number } {
    const immediate = db.immediate.bind(db);
    const counter = { count: 0 };
    db.immediate = <T>(work: () => T): T => {
      counter.count++;
      return immediate(work);
    };
    return counter;
  }
  const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

  it('calls of later turns arriving within the interval after a commit wait for it and share one commit', async () => {
    const store = new SqliteReplayStore(db, { sweepIntervalMs: 0, commitIntervalMs: 200 });
    const commits = countCommits();
    const started = performance.now();
    // After a quiet interval the first call is decided at the end of its own turn.
    expect(await store.recordIfAbsent('a', 1000, 60_000)).toEqual({ recorded: true });
    expect(performance.now() - started).toBeLessThan(150);
    expect(commits.count).toBe(1);
    const later: Promise<unknown>[] = [];
    for (const key of ['b', 'c', 'a', 'b']) {
      await nextTurn();
      later.push(store.recordIfAbsent(key, 1001, 60_000));
    }
    expect(await Promise.all(later)).toEqual([
      { recorded: true },
      { recorded: true },
      { recorded: false, firstSeenAtMs: 1000 },
      { recorded: false, firstSeenAtMs: 1001 },
    ]);
    // Four turns, one commit, made when the interval after the first ended.
    expect(commits.count).toBe(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(db.rowCount('replay_records')).toBe(3);
    store.dispose();
  });

  it('with an interval of 0 every turn commits its own calls', async () => {
    const store = new SqliteReplayStore(db, { sweepIntervalMs: 0, commitIntervalMs: 0 });
    const commits = countCommits();
    const calls: Promise<unknown>[] = [];
    for (const key of ['a', 'b', 'c']) {
      calls.push(store.recordIfAbsent(key, 1000, 60_000));
      await nextTurn();
    }
    await Promise.all(calls);
    expect(commits.count).toBe(3);
    store.dispose();
  });

  it('refuses an interval that is negative or not a number', () => {
    for (const commitIntervalMs of [-1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => new SqliteReplayStore(db, { sweepIntervalMs: 0, commitIntervalMs })).toThrow(RangeError);
  });

  it('disposed while a commit waits for its interval: the calls are decided at once and the timer is cleared', async () => {
    const store = new SqliteReplayStore(db, { sweepIntervalMs: 0, commitIntervalMs: 60_000 });
    await store.recordIfAbsent('a', 1000, 60_000);
    await nextTurn();
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const timersBefore = timers();
    const waiting = [store.recordIfAbsent('b', 1000, 60_000), store.recordIfAbsent('a', 1001, 60_000)];
    // The two calls wait on one timer (the rest of the 60 s interval).
    expect(timers()).toBe(timersBefore + 1);
    const commits = countCommits();
    store.dispose();
    expect(commits.count).toBe(1);
    expect(timers()).toBe(timersBefore);
    expect(await Promise.all(waiting)).toEqual([
      { recorded: true },
      { recorded: false, firstSeenAtMs: 1000 },
    ]);
    expect(db.rowCount('replay_records')).toBe(2);
  });
});

describe('ReplayStore (sqlite): disposed with calls queued', () => {
  it('decides them before its owner closes the database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'replay-dispose-'));
    const file = join(dir, 'passport.db');
    try {
      const db = SqliteDatabase.open(file);
      const store = new SqliteReplayStore(db, { sweepIntervalMs: 0 });
      const queued = [store.recordIfAbsent('a', 1000, 60_000), store.recordIfAbsent('a', 1001, 60_000)];
      store.dispose();
      db.close();
      expect(await Promise.all(queued)).toEqual([
        { recorded: true },
        { recorded: false, firstSeenAtMs: 1000 },
      ]);
      const reopened = SqliteDatabase.open(file);
      expect(reopened.rowCount('replay_records')).toBe(1);
      reopened.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * Appends `count` records (`k|0`…) to the log through `db`, as another process would, in one transaction
 * on the calling stack: no background read can run before it has committed.
 */
function appendRows(db: SqliteDatabase, count: number, now: number): void {
  db.immediate(() => {
    const insert = db.statement(
      'INSERT INTO replay_records (key, first_seen_ms, expires_at_ms, owner) VALUES (?, ?, ?, NULL)',
    );
    for (let i = 0; i < count; i++) insert.run(`k|${i}`, now, now + 60_000);
  });
}

/** Takes `db`'s write lock (BEGIN IMMEDIATE) and keeps it until the returned function is called. */
function holdWriteLock(db: SqliteDatabase): () => void {
  db.statement('BEGIN IMMEDIATE').run();
  return () => db.statement('COMMIT').run();
}

/**
 * Puts an older log in place through `db`, as a file restored under running stores would: the rows above
 * `toId` deleted and the sequence set back to it.
 */
function putLogBack(db: SqliteDatabase, toId: number): void {
  db.immediate(() => {
    db.statement('DELETE FROM replay_records WHERE id > ?').run(toId);
    db.statement("UPDATE sqlite_sequence SET seq = ? WHERE name = 'replay_records'").run(toId);
  });
}

describe('ReplayStore (sqlite): the log and each connection index of it', () => {
  let dir: string;
  let file: string;
  const opened: SqliteDatabase[] = [];
  const stores: SqliteReplayStore[] = [];
  const connect = () => {
    const db = SqliteDatabase.open(file);
    opened.push(db);
    return db;
  };
  // Times counted exactly (no grace after expiry) unless a test asks for the default grace; the log read
  // only before decisions (no background read) unless a test asks for it.
  const storeOn = (
    db: SqliteDatabase,
    options: { expiredGraceMs?: number; followIntervalMs?: number } = { expiredGraceMs: 0 },
  ) => {
    const store = new SqliteReplayStore(db, {
      sweepIntervalMs: 0,
      commitIntervalMs: 0,
      followIntervalMs: 0,
      ...options,
    });
    stores.push(store);
    return store;
  };
  // The background read, run by hand (one step, on the calling stack) rather than by its timer.
  const follow = (store: SqliteReplayStore) =>
    (store as unknown as { followInSteps(): void }).followInSteps();
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'replay-log-'));
    file = join(dir, 'passport.db');
  });
  afterEach(() => {
    for (const store of stores.splice(0)) store.dispose();
    for (const db of opened.splice(0)) db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('has no index on the key: a record appends one row, in id order', async () => {
    const db = connect();
    const store = storeOn(db);
    await Promise.all(['b|2', 'a|1', 'c|3'].map((key) => store.recordIfAbsent(key, 1000, 60_000)));
    expect(db.statement('SELECT id, key FROM replay_records ORDER BY id').raw().all()).toEqual([
      [1, 'b|2'],
      [2, 'a|1'],
      [3, 'c|3'],
    ]);
    const indexed = db
      .statement("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'replay_records'")
      .pluck()
      .all();
    expect(indexed).toEqual(['replay_records_expiry']);
  });

  // Found by an integrator's probe: the file stores a key as UTF-8, where a lone surrogate is U+FFFD,
  // while each connection's index kept the key as given: another connection (or a restart) learnt the
  // stored spelling and recorded the same key again.
  it('a key with a lone surrogate is one key across connections and restarts, as the file stores it', async () => {
    const firstDb = connect();
    const first = storeOn(firstDb);
    expect(await first.recordIfAbsent('login|x\uD800|t', 1000, 60_000)).toEqual({ recorded: true });
    const other = storeOn(connect());
    expect(await other.recordIfAbsent('login|x\uD800|t', 2000, 60_000)).toEqual({
      recorded: false,
      firstSeenAtMs: 1000,
    });
    // UTF-8 cannot tell lone surrogates apart: another one is the same stored key (refused, never lost).
    expect(other.recordIfAbsentSync('login|x\uDC01|t', 3000, 60_000)).toEqual({
      recorded: false,
      firstSeenAtMs: 1000,
    });
    expect(await first.recordIfAbsent('login|x\uD800|t', 4000, 60_000)).toEqual({
      recorded: false,
      firstSeenAtMs: 1000,
    });
    expect(firstDb.statement('SELECT count(*) FROM replay_records').pluck().get()).toBe(1);
  });

  it('a store opened before another connection recorded a key finds it at its next decision', async () => {
    const early = storeOn(connect());
    const other = storeOn(connect());
    expect(await other.recordIfAbsent('k|1', 1000, 60_000)).toEqual({ recorded: true });
    expect(early.recordIfAbsentSync('k|1', 2000, 60_000)).toEqual({ recorded: false, firstSeenAtMs: 1000 });
    expect(await early.recordIfAbsent('k|1', 3000, 60_000)).toEqual({ recorded: false, firstSeenAtMs: 1000 });
    // And the other way round, after each has read the log once.
    expect(await early.recordIfAbsent('k|2', 4000, 60_000)).toEqual({ recorded: true });
    expect(await other.recordIfAbsent('k|2', 5000, 60_000)).toEqual({ recorded: false, firstSeenAtMs: 4000 });
  });

  it('an expired record replaced on another connection: the newest row is the one each connection goes by', async () => {
    const a = storeOn(connect());
    const b = storeOn(connect());
    await a.recordIfAbsent('k|1', 1000, 2000);
    expect(await b.recordIfAbsent('k|1', 1500, 9000)).toEqual({ recorded: false, firstSeenAtMs: 1000 });
    expect(await b.recordIfAbsent('k|1', 2500, 9000)).toEqual({ recorded: true });
    expect(await a.recordIfAbsent('k|1', 3000, 9000)).toEqual({ recorded: false, firstSeenAtMs: 2500 });
    expect(a.size).toBe(1); // the expired row was deleted when it was replaced
  });

  it("a record in a caller's transaction that rolls back is not remembered: the key is new again", () => {
    const db = connect();
    const store = storeOn(db);
    const rollBack = new Error('roll back');
    expect(() =>
      db.immediate(() => {
        expect(store.recordInTransaction('k|1', 1000, 60_000)).toEqual({ recorded: true });
        // The same transaction sees its own record.
        expect(store.recordInTransaction('k|1', 1001, 60_000)).toEqual({
          recorded: false,
          firstSeenAtMs: 1000,
        });
        throw rollBack;
      }),
    ).toThrow(rollBack);
    expect(store.recordIfAbsentSync('k|1', 2000, 60_000)).toEqual({ recorded: true });
    expect(store.recordIfAbsentSync('k|1', 2001, 60_000)).toEqual({ recorded: false, firstSeenAtMs: 2000 });
  });

  it("a record in a caller's transaction that commits is known to every connection afterwards", async () => {
    const db = connect();
    const store = storeOn(db);
    const other = storeOn(connect());
    db.immediate(() => store.recordInTransaction('k|1', 1000, 60_000));
    expect(await store.recordIfAbsent('k|1', 2000, 60_000)).toEqual({ recorded: false, firstSeenAtMs: 1000 });
    expect(await other.recordIfAbsent('k|1', 2000, 60_000)).toEqual({ recorded: false, firstSeenAtMs: 1000 });
  });

  it('a log that went back (ids given again) is read whole: a key recorded under a reused id is found, and a key only the index still knows stays refused', async () => {
    const db = connect();
    const store = storeOn(db);
    for (let i = 1; i <= 5; i++) await store.recordIfAbsent(`old|${i}`, 1000, 60_000);
    // Another connection puts an older log in place (as a file restored under the store would), then
    // records a key whose id (2) the store has already seen.
    const other = connect();
    putLogBack(other, 1);
    await storeOn(other).recordIfAbsent('new|1', 3000, 60_000);
    expect(other.statement("SELECT id FROM replay_records WHERE key = 'new|1'").pluck().get()).toBe(2);
    expect(await store.recordIfAbsent('new|1', 4000, 60_000)).toEqual({
      recorded: false,
      firstSeenAtMs: 3000,
    });
    // A probe: the index was emptied and read again, so every line used after the copy was accepted
    // again. It keeps what it knew, and the line stays refused here.
    expect(await store.recordIfAbsent('old|3', 4000, 60_000)).toEqual({
      recorded: false,
      firstSeenAtMs: 1000,
    });
  });

  // The index keeps its records when the log goes back, but not their ids, which the log may give to
  // other keys: a kept record replaced once it has expired must not delete another key's row by its id.
  it('a record kept after the log went back, replaced once expired, deletes no row of the key given its id', async () => {
    const store = storeOn(connect());
    await store.recordIfAbsent('seed|1', 1000, 60_000); // id 1
    await store.recordIfAbsent('short|1', 1000, 2000); // id 2
    const admin = connect();
    putLogBack(admin, 1);
    await storeOn(admin).recordIfAbsent('other|1', 1500, 60_000); // id 2 again
    expect(await store.recordIfAbsent('short|1', 3000, 60_000)).toEqual({ recorded: true });
    expect(admin.statement('SELECT id, key FROM replay_records ORDER BY id').raw().all()).toEqual([
      [1, 'seed|1'],
      [2, 'other|1'],
      [3, 'short|1'],
    ]);
  });

  it.each([
    ['in its own transaction', false],
    ["in a caller's transaction", true],
  ])(
    'a copy restored in place that holds an older row of a key the store recorded again since: the later record stays (decided %s)',
    async (_, inCallersTransaction) => {
      const db = connect();
      const store = storeOn(db);
      await store.recordIfAbsent('k|1', 1000, 2000); // id 1
      const copy = join(dir, 'copy.db');
      await copyDatabase(file, copy);
      expect(await store.recordIfAbsent('k|1', 3000, 60_000)).toEqual({ recorded: true }); // id 1 replaced by 2
      await copyDatabase(copy, file); // under the store, as sqlite3's .restore does
      const again = inCallersTransaction
        ? db.immediate(() => store.recordInTransaction('k|1', 4000, 60_000))
        : await store.recordIfAbsent('k|1', 4000, 60_000);
      expect(again).toEqual({ recorded: false, firstSeenAtMs: 3000 });
      // A process that had not read it takes the older row: the history's hold is what covers it.
      expect(await storeOn(connect()).recordIfAbsent('k|1', 4000, 60_000)).toEqual({ recorded: true });
    },
  );

  // Found by a probe: a store that had not seen the sequence go back (another process had caught it and
  // written past the store's last id since) read only the rows above that id, and accepted again the
  // keys the other process had recorded under the ids given again.
  // With the background read first: read as a plain continuation, ids 6..10 would move the last id seen
  // and the anchor past the reused ids 1..5, and the decision would no longer notice (a review).
  it.each([
    ['', false],
    [', after a background read too', true],
  ])(
    'a log that went back and was written past the last id a store saw: the anchor row holding another key tells it%s',
    async (_, readFirst) => {
      const lagging = storeOn(connect());
      for (let i = 1; i <= 5; i++) await lagging.recordIfAbsent(`old|${i}`, 1000, 60_000);
      const admin = connect();
      const writer = storeOn(admin); // has read ids 1..5 too
      putLogBack(admin, 0);
      // The writer notices (0 < 5), reads the log again and records ten keys: ids 1..10.
      for (let i = 1; i <= 10; i++) await writer.recordIfAbsent(`new|${i}`, 2000, 60_000);
      if (readFirst) follow(lagging);
      for (let i = 1; i <= 10; i++)
        expect(await lagging.recordIfAbsent(`new|${i}`, 3000, 60_000)).toEqual({
          recorded: false,
          firstSeenAtMs: 2000,
        });
    },
  );

  // Found by a probe: the log's state and its rows were read in two snapshots, so a log that went back
  // between the two reads and was written past the last id seen was read as a continuation: the rows
  // given the ids at or below it again were never read, and their keys were accepted a second time.
  it.each([['a decision'], ['the background read']])(
    "a log that goes back between the reads of its state and of its rows is noticed (%s's read ahead)",
    async (reader) => {
      const db = connect();
      const store = storeOn(db);
      const writer = storeOn(connect());
      for (let i = 1; i <= 10; i++) await writer.recordIfAbsent(`old|${i}`, 1000, 60_000);
      await store.recordIfAbsent('own|1', 1000, 60_000); // id 11: the store has read 1..11
      for (let i = 1; i <= 3; i++) await writer.recordIfAbsent(`more|${i}`, 1000, 60_000); // 12..14, ahead
      const admin = connect();
      // When the store takes its statement for the rows (after reading the state): the log put back to
      // id 5, and the writer (which notices) records 15 keys, ids 6..20, past the store's last id.
      let wentBack = false;
      const statement = db.statement.bind(db);
      (db as unknown as { statement: typeof db.statement }).statement = (sql: string) => {
        if (!wentBack && /FROM replay_records WHERE id > \? ORDER BY id/.test(sql)) {
          wentBack = true;
          putLogBack(admin, 5);
          for (let i = 1; i <= 15; i++) writer.recordIfAbsentSync(`new|${i}`, 2000, 60_000);
        }
        return statement(sql);
      };
      if (reader === 'a decision') await store.recordIfAbsent('trigger|1', 3000, 60_000);
      else follow(store);
      expect(wentBack).toBe(true);
      for (let i = 1; i <= 15; i++)
        expect([i, await store.recordIfAbsent(`new|${i}`, 4000, 60_000)]).toEqual([
          i,
          { recorded: false, firstSeenAtMs: 2000 },
        ]);
    },
  );

  // Found in review: a log put back to id 5 and written up to exactly the store's last id (10) left its
  // sequence where the store had seen it.
  it('a log that went back and was written up to exactly the last id a store saw is read again', async () => {
    const store = storeOn(connect());
    for (let i = 1; i <= 10; i++) await store.recordIfAbsent(`old|${i}`, 1000, 60_000);
    const admin = connect();
    putLogBack(admin, 5);
    const writer = storeOn(admin);
    for (let i = 1; i <= 5; i++) await writer.recordIfAbsent(`new|${i}`, 2000, 60_000); // ids 6..10
    for (let i = 1; i <= 5; i++)
      expect(await store.recordIfAbsent(`new|${i}`, 3000, 60_000)).toEqual({
        recorded: false,
        firstSeenAtMs: 2000,
      });
  });

  // Review: mutations of the nested path (learning rows of a transaction that may roll back, no check
  // of a log gone back) that no test caught.
  it("an id rolled back in a caller's transaction and given to another key by another connection: that key is found", async () => {
    const db = connect();
    const store = storeOn(db);
    await store.recordIfAbsent('seed|1', 1000, 60_000); // id 1
    expect(() =>
      db.immediate(() => {
        store.recordInTransaction('rolled|1', 1000, 60_000); // id 2, rolled back
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    expect(await storeOn(connect()).recordIfAbsent('x|1', 2000, 60_000)).toEqual({ recorded: true }); // id 2
    expect(await store.recordIfAbsent('x|1', 3000, 60_000)).toEqual({ recorded: false, firstSeenAtMs: 2000 });
  });

  it("a decision in a caller's transaction after the log went back reads it whole", async () => {
    const db = connect();
    const store = storeOn(db);
    for (let i = 1; i <= 5; i++) await store.recordIfAbsent(`old|${i}`, 1000, 60_000);
    const other = connect();
    putLogBack(other, 1);
    await storeOn(other).recordIfAbsent('new|1', 3000, 60_000); // id 2
    expect(db.immediate(() => store.recordInTransaction('new|1', 4000, 60_000))).toEqual({
      recorded: false,
      firstSeenAtMs: 3000,
    });
  });

  // Review: the index forgetting a live record (in the sweep's deletes or its whole scan) went unnoticed.
  it("the sweep deleting an expired row of a key recorded again since keeps the key's live record", async () => {
    const store = storeOn(connect(), {}); // the default grace
    await store.recordIfAbsent('k|1', 1000, 2000); // id 1
    // A minute past its expiry the index forgets it at a commit; its row stays for the sweep.
    await store.recordIfAbsent('other|1', 70_000, 200_000);
    expect(await store.recordIfAbsent('k|1', 70_100, 200_000)).toEqual({ recorded: true }); // id 3
    expect(store.size).toBe(3);
    expect(store.sweep(70_200)).toBe(1);
    expect(await store.recordIfAbsent('k|1', 70_300, 200_000)).toEqual({
      recorded: false,
      firstSeenAtMs: 70_100,
    });
  });

  it('the whole scan of an index larger than the table keeps its live records', async () => {
    const a = storeOn(connect());
    const b = storeOn(connect());
    await Promise.all(Array.from({ length: 50 }, (_, i) => a.recordIfAbsent(`k|${i}`, 1000, 5000)));
    await a.recordIfAbsent('live|1', 1000, 60_000);
    await b.recordIfAbsent('x|1', 1000, 60_000);
    expect(b.sweep(9000)).toBe(50);
    expect(a.sweep(9000)).toBe(0); // a's index (51) is larger than the table (2): scanned
    expect(await a.recordIfAbsent('live|1', 9500, 60_000)).toEqual({ recorded: false, firstSeenAtMs: 1000 });
  });

  it('records a minute past their expiry leave the index at a commit, without a sweep; a key recorded again moves to its end', async () => {
    const store = storeOn(connect(), {}); // the default grace
    const indexed = () => (store as unknown as { known: { size: number } }).known.size;
    await store.recordIfAbsent('k|1', 1000, 2000);
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.recordIfAbsent(`s|${i}`, 1000, 2600)));
    await store.recordIfAbsent('k|1', 2500, 100_000); // expired: replaced, and moved behind the s|*
    await store.recordIfAbsent('late|1', 63_000, 100_000); // forgets what expired before 3000
    expect(indexed()).toBe(2);
  });

  // Found by a probe: a store that never sweeps (sweepIntervalMs 0) beside one that does kept every
  // record it ever read (308 737 against a table of 2 212 after 15 s).
  it("a store that does not sweep keeps its index bounded by the log while another connection's sweeps delete rows", async () => {
    const sweeper = storeOn(connect());
    const idle = storeOn(connect());
    const indexed = () => (idle as unknown as { known: { size: number } }).known.size;
    // A long-lived record first: the index's oldest end stays live, so dropping from it frees nothing.
    await idle.recordIfAbsent('long|1', 0, 86_400_000);
    let n = 0;
    for (let round = 0; round < 6; round++) {
      const nowMs = 100_000 * (round + 1); // a round's records are forgotten a minute after they expire
      await Promise.all(
        Array.from({ length: 3000 }, () => sweeper.recordIfAbsent(`k|${n++}`, nowMs, nowMs + 5000)),
      );
      await idle.recordIfAbsent(`idle|${round}`, nowMs, nowMs + 5000); // reads the round's records
      sweeper.sweep(nowMs + 5000); // deletes them
    }
    // Six rounds read: 18 007 records; the table never held more than 3 002.
    expect(indexed()).toBeLessThanOrEqual(2 * 4096);
  });

  // Measured: a store that had not decided while another wrote 1 000 000 records read them all before its
  // next decision, on the event loop (~1.4 s).
  it('a store that decides rarely follows the log in the background, 5000 rows a turn, and decides without reading it', async () => {
    const writerDb = connect();
    storeOn(writerDb); // the schema
    const db = connect();
    const idle = storeOn(db, { expiredGraceMs: 0, followIntervalMs: 20 });
    const indexed = () => (idle as unknown as { known: { size: number } }).known.size;
    const now = Date.now();
    appendRows(writerDb, 23_000, now); // another process's records
    // Index sizes seen between turns while the background read runs: it took the rows in steps.
    const sizes = new Set<number>();
    const giveUpAt = Date.now() + 10_000; // a follower that stopped fails the test, never spins on
    await new Promise<void>((resolve, reject) => {
      const poll = () => {
        sizes.add(indexed());
        if (indexed() === 23_000) resolve();
        else if (Date.now() > giveUpAt) reject(new Error(`the index stopped at ${indexed()}`));
        else setImmediate(poll);
      };
      poll();
    });
    expect([...sizes].filter((n) => n > 0 && n < 23_000).length).toBeGreaterThanOrEqual(3);
    for (const n of sizes) expect(n % 5000 === 0 || n === 23_000).toBe(true);
    // Its next decision reads only what came after: the statements it runs read no row of the backlog.
    const rowsRead = countLogRowsRead(db);
    await expect(idle.recordIfAbsent('k|7', now, now + 60_000)).resolves.toMatchObject({ recorded: false });
    await expect(idle.recordIfAbsent('new|1', now, now + 60_000)).resolves.toEqual({ recorded: true });
    expect(rowsRead()).toBe(0);
  });

  // Found by a probe: a process resumed after falling far behind (SIGSTOP while others appended 200 000
  // rows) read the whole backlog in its first verify's read ahead, its event loop stopped ~250 ms.
  it('a decision behind a backlog reads it 5000 rows a turn before deciding, and none of it under the write lock', async () => {
    const writerDb = connect();
    storeOn(writerDb); // the schema
    const db = connect();
    const behind = storeOn(db); // no background read
    const indexed = () => (behind as unknown as { known: { size: number } }).known.size;
    const now = Date.now();
    appendRows(writerDb, 23_000, now);
    // Rows of the log read while the store holds the write lock (its decision's catchUp).
    let underLock = false;
    const immediate = db.immediate.bind(db);
    (db as unknown as { immediate: typeof db.immediate }).immediate = <T>(work: () => T): T =>
      immediate(() => {
        underLock = true;
        try {
          return work();
        } finally {
          underLock = false;
        }
      });
    const rowsReadUnderLock = countLogRowsRead(db, () => underLock);
    const first = behind.recordIfAbsent('k|7', now, now + 60_000);
    let later: Promise<unknown> | undefined;
    let answered = false;
    void first.finally(() => (answered = true));
    // Index sizes seen between turns until the call is answered: the backlog was read in steps, and a
    // call made meanwhile waits for the same decision.
    const sizes = new Set<number>();
    await new Promise<void>((resolve) => {
      const poll = () => {
        if (answered) return resolve();
        sizes.add(indexed());
        if (indexed() > 0) later ??= behind.recordIfAbsent('new|1', now, now + 60_000);
        setImmediate(poll);
      };
      poll();
    });
    expect([...sizes].filter((n) => n > 0 && n < 23_000).length).toBeGreaterThanOrEqual(3);
    for (const n of sizes) expect(n % 5000 === 0 || n === 23_000).toBe(true);
    await expect(first).resolves.toEqual({ recorded: false, firstSeenAtMs: now });
    await expect(later).resolves.toEqual({ recorded: true });
    expect(rowsReadUnderLock()).toBe(0);
  });

  // Review: the background read's own guards, each taken away without a test failing (the log that went
  // back: the anchor test above, run after a background read too).
  it("the background read does not learn the rows of a transaction still open on the store's connection", async () => {
    const db = connect();
    const store = storeOn(db);
    await store.recordIfAbsent('before|1', 1000, 60_000);
    db.statement('BEGIN IMMEDIATE').run();
    db.statement(
      'INSERT INTO replay_records (key, first_seen_ms, expires_at_ms, owner) VALUES (?, ?, ?, NULL)',
    ).run('rolled-back|1', 1000, 60_000);
    follow(store);
    expect((store as unknown as { known: { size: number } }).known.size).toBe(1); // before|1 alone
    db.statement('ROLLBACK').run();
    await expect(store.recordIfAbsent('rolled-back|1', 2000, 60_000)).resolves.toEqual({ recorded: true });
  });

  it("a store that only follows keeps its index bounded by the log while another connection's sweeps delete rows", async () => {
    const sweeper = storeOn(connect());
    const follower = storeOn(connect());
    const indexed = () => (follower as unknown as { known: { size: number } }).known.size;
    await follower.recordIfAbsent('long|1', 0, 86_400_000); // the index's oldest end stays live
    let n = 0;
    for (let round = 0; round < 6; round++) {
      const nowMs = 100_000 * (round + 1);
      await Promise.all(
        Array.from({ length: 3000 }, () => sweeper.recordIfAbsent(`k|${n++}`, nowMs, nowMs + 5000)),
      );
      follow(follower); // reads the round's records (3000: one step)
      sweeper.sweep(nowMs + 5000);
    }
    expect(indexed()).toBeLessThanOrEqual(2 * 4096);
  });

  // A probe: one statement deleting 500 000 expired rows stopped the event loop for ~1 s.
  it('the background sweep deletes expired rows 2000 at a time, the event loop turning between steps', async () => {
    const db = connect();
    const filler = storeOn(db);
    const now = Date.now();
    await Promise.all(
      Array.from({ length: 5000 }, (_, i) => filler.recordIfAbsent(`k|${i}`, now - 200_000, now - 120_000)),
    );
    await filler.recordIfAbsent('live|1', now, now + 60_000);
    const counts = new Set<number>();
    let polling = true;
    const poll = () => {
      counts.add(db.rowCount('replay_records'));
      if (polling) setImmediate(poll);
    };
    poll();
    const sweeping = new SqliteReplayStore(db, { sweepIntervalMs: 20 });
    stores.push(sweeping);
    while (db.rowCount('replay_records') > 1) await new Promise((resolve) => setTimeout(resolve, 5));
    polling = false;
    counts.add(db.rowCount('replay_records'));
    expect([...counts].sort((a, b) => b - a)).toEqual([5001, 3001, 1001, 1]);
    expect(await sweeping.recordIfAbsent('live|1', now, now + 60_000)).toEqual({
      recorded: false,
      firstSeenAtMs: now,
    });
    expect(await sweeping.recordIfAbsent('k|1', now, now + 60_000)).toEqual({ recorded: true });
  });

  // Found by a probe: a call decided late (waiting for the write lock) with the time it was made found
  // nothing, because another process's sweep had deleted the record by the wall clock, and the key was
  // accepted twice. The background sweep deletes a record, and the index forgets it, a minute after expiry.
  it('the background sweep leaves a record a minute past its expiry, for a decision made late with an earlier time', async () => {
    let wallMs = 0;
    const clock = { nowMs: () => wallMs };
    const db = connect();
    const sweeping = new SqliteReplayStore(db, { sweepIntervalMs: 10, clock });
    stores.push(sweeping);
    const late = storeOn(connect());
    await sweeping.recordIfAbsent('k|1', 1000, 5000);
    // A record expired long before: its deletion shows that a sweep has run.
    await sweeping.recordIfAbsent('marker|1', 0, 1);
    const key = (k: string) =>
      db.statement('SELECT count(*) FROM replay_records WHERE key = ?').pluck().get(k);
    const until = async (done: () => boolean) => {
      while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    wallMs = 5000 + 59_000;
    await until(() => key('marker|1') === 0);
    expect(key('k|1')).toBe(1);
    expect(await late.recordIfAbsent('k|1', 4999, 9000)).toEqual({ recorded: false, firstSeenAtMs: 1000 });
    wallMs = 5000 + 60_000;
    await until(() => key('k|1') === 0);
  });

  // Found by a second probe: making room at a sender's quota (or the cap) deleted records by the call's
  // time, so a call made earlier and decided later found nothing and recorded a live key again (14 of 30
  // keys with a transaction holding the lock 2.5 s). Room is made only from records past the grace.
  it("making room at a sender's quota or the cap leaves a record within its grace, for a call made before it expired", async () => {
    const quotaStore = storeOn(connect(), {}); // the default grace
    const late = storeOn(connect(), {});
    await quotaStore.recordIfAbsent('K|1', 1000, 2000);
    await quotaStore.recordIfAbsent('o|1', 1000, 2000, { owner: 'o', maxPerOwner: 1 });
    // o is at its quota at 3000; its expired record is within the grace, so it still counts.
    await expect(
      quotaStore.recordIfAbsent('o|2', 3000, 9000, { owner: 'o', maxPerOwner: 1 }),
    ).rejects.toMatchObject({ code: 'REPLAY_QUOTA_EXCEEDED' });
    expect(await late.recordIfAbsent('K|1', 1500, 9000)).toEqual({ recorded: false, firstSeenAtMs: 1000 });
    // The cap (2: K|1 and o|1, both expired, within the grace): no room is made either.
    const capped = new SqliteReplayStore(connect(), { sweepIntervalMs: 0, maxEntries: 2 });
    stores.push(capped);
    await expect(capped.recordIfAbsent('x|1', 3000, 9000)).rejects.toMatchObject({
      code: 'REPLAY_STORE_FULL',
    });
    expect(await late.recordIfAbsent('K|1', 1500, 9000)).toEqual({ recorded: false, firstSeenAtMs: 1000 });
    // A minute past, the quota makes room.
    expect(await quotaStore.recordIfAbsent('o|2', 62_001, 90_000, { owner: 'o', maxPerOwner: 1 })).toEqual({
      recorded: true,
    });
  });

  // Found by a second probe: a store deciding only in transactions begun with its `immediate` (the login
  // recorder's way) read others' rows ahead of the lock and never compared its index with the table.
  it('a store recording only in its own `immediate` transactions keeps its index bounded when another connection sweeps', async () => {
    const sweeper = storeOn(connect());
    const db = connect();
    const logins = storeOn(db);
    const indexed = () => (logins as unknown as { known: { size: number } }).known.size;
    logins.immediate(() => logins.recordInTransaction('long|1', 0, 86_400_000)); // pins the oldest end
    let n = 0;
    for (let round = 0; round < 6; round++) {
      const nowMs = 100_000 * (round + 1);
      await Promise.all(
        Array.from({ length: 3000 }, () => sweeper.recordIfAbsent(`k|${n++}`, nowMs, nowMs + 5000)),
      );
      logins.immediate(() => logins.recordInTransaction(`login|${round}`, nowMs, nowMs + 5000));
      sweeper.sweep(nowMs + 5000);
    }
    expect(indexed()).toBeLessThanOrEqual(2 * 4096);
  });

  // Found by a second probe: a store that moved past deleted rows kept its anchor on an older row, so a
  // log put back to just after the anchor and written past the store's last id went unnoticed.
  it('a log written again over ids a store moved past when their rows were gone is noticed', async () => {
    const p = storeOn(connect());
    await p.recordIfAbsent('a|1', 1000, 60_000); // id 1: p's anchor
    const q = storeOn(connect());
    await q.recordIfAbsent('e|1', 1000, 2000); // ids 2, 3, expired and swept
    await q.recordIfAbsent('e|2', 1000, 2000);
    q.sweep(3000);
    expect(await p.recordIfAbsent('a|1', 4000, 60_000)).toMatchObject({ recorded: false }); // p moves to 3
    const admin = connect();
    putLogBack(admin, 1);
    const r = storeOn(admin);
    for (let i = 1; i <= 3; i++) await r.recordIfAbsent(`v|${i}`, 5000, 60_000); // ids 2..4
    for (let i = 1; i <= 3; i++)
      expect(await p.recordIfAbsent(`v|${i}`, 6000, 60_000)).toEqual({
        recorded: false,
        firstSeenAtMs: 5000,
      });
  });

  it('reads a log of many records when it opens, and forgets expired ones in its sweep', async () => {
    const db = connect();
    const writer = storeOn(db);
    await Promise.all(
      Array.from({ length: 3000 }, (_, i) => writer.recordIfAbsent(`k|${i}`, 1000, i % 2 ? 5000 : 60_000)),
    );
    const reader = storeOn(connect());
    expect(await reader.recordIfAbsent('k|2998', 2000, 60_000)).toEqual({
      recorded: false,
      firstSeenAtMs: 1000,
    });
    expect(await reader.recordIfAbsent('k|2999', 2000, 60_000)).toEqual({
      recorded: false,
      firstSeenAtMs: 1000,
    });
    expect(reader.sweep(6000)).toBe(1500);
    expect(await reader.recordIfAbsent('k|2999', 7000, 60_000)).toEqual({ recorded: true });
    expect(await reader.recordIfAbsent('k|2998', 7000, 60_000)).toEqual({
      recorded: false,
      firstSeenAtMs: 1000,
    });
    expect(reader.size).toBe(1501);
  });

  it("a connection's index stays bounded by the log when another connection sweeps it", async () => {
    const a = storeOn(connect());
    const b = storeOn(connect());
    await Promise.all(
      Array.from({ length: 500 }, (_, i) => a.recordIfAbsent(`k|${i}`, 1000, 5000 + (i % 7))),
    );
    await b.recordIfAbsent('live|1', 1000, 60_000); // b reads a's records
    const indexed = (store: SqliteReplayStore) =>
      (store as unknown as { known: Map<string, unknown> }).known.size;
    expect([indexed(a), indexed(b)]).toEqual([500, 501]);
    expect(b.sweep(9000)).toBe(500);
    expect(indexed(b)).toBe(1);
    // a deleted nothing itself (the rows are gone), yet its sweep drops the 500 expired records.
    expect(a.sweep(9000)).toBe(0);
    expect(indexed(a)).toBe(0);
  });
});
