/**
 * What the LoginRecorder contract (login-recorder.contract.spec.ts) does not cover: SQLite's one
 * transaction when a write fails inside it, its batches, and the failures each composition names.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryReplayStore, PassportError, sequentialLoginRecorder } from '@passport/core';
import { LoginRecordFailure, SessionCapacityError, type SessionStore } from '@passport/core/ports';
import { MemorySessionStore, sampleSessionRecord } from '@passport/core/testing';
import {
  SqliteDatabase,
  SqliteLoginRecorder,
  SqliteReplayStore,
  SqliteSessionStore,
} from '@passport/adapters/sqlite';
import { createStoreBackend, type StoreBackend } from '../../apps/api/src/platform/store/store-backend.js';

const challenge = (n: number) => ({ key: `login|abcdefghijkl|${n}`, nowMs: 1000, expiresAtMs: 400_000 });
const session = (n: number) => sampleSessionRecord(n, { createdAtMs: 1000, expiresAtMs: 3_601_000 });

describe('LoginRecorder (sqlite): one transaction', () => {
  it('a session write that fails rolls the challenge record back, and the failure names the session', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'passport-login-recorder-'));
    const backend = createStoreBackend({ store: 'sqlite', dataDir: dir });
    try {
      // A session id that exists already makes the insert fail inside the transaction.
      await backend.sessions.create(session(1));
      const failure = await backend
        .loginRecorder!.recordLogin(challenge(9), session(1))
        .catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(LoginRecordFailure);
      expect((failure as LoginRecordFailure).part).toBe('session');
      const db = SqliteDatabase.openInDataDir(dir);
      try {
        expect(
          db.statement('SELECT count(*) AS n FROM replay_records WHERE key = ?').get(challenge(9).key),
        ).toEqual({ n: 0 });
      } finally {
        db.close();
      }
    } finally {
      backend.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('LoginRecorder (sqlite): logins of one event-loop turn share a transaction', () => {
  let dir: string;
  let backend: StoreBackend;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'passport-login-recorder-'));
    backend = createStoreBackend({ store: 'sqlite', dataDir: dir }, { sessions: { maxEntries: 3 } });
  });
  afterEach(() => {
    backend.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("one login's refusal answers that login alone; the others are stored", async () => {
    const recorder = backend.loginRecorder!;
    const outcomes = await Promise.allSettled([
      recorder.recordLogin(challenge(11), session(2)),
      recorder.recordLogin(challenge(11), session(3)), // challenge used by the first of this batch
      recorder.recordLogin(challenge(13), session(4)),
      recorder.recordLogin(challenge(12), session(1)),
      recorder.recordLogin(challenge(14), session(5)), // capacity 3 reached by sessions 2, 4 and 1
    ]);
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: { recorded: true } });
    expect(outcomes[1]).toMatchObject({ status: 'fulfilled', value: { recorded: false } });
    expect(outcomes[2]).toEqual({ status: 'fulfilled', value: { recorded: true } });
    expect(outcomes[3]).toEqual({ status: 'fulfilled', value: { recorded: true } });
    expect(outcomes[4]).toMatchObject({ status: 'rejected', reason: expect.any(SessionCapacityError) });
    const stored = await Promise.all([2, 3, 4, 1, 5].map((n) => backend.sessions.get(session(n).sessionId)));
    expect(stored.map((s) => s !== null)).toEqual([true, false, true, true, false]);
    // The refused login left its challenge unused.
    await backend.sessions.close(session(1).sessionId, 'logout', 1000);
    await backend.sessions.sweep(1001);
    await expect(recorder.recordLogin(challenge(14), session(7))).resolves.toEqual({ recorded: true });
  });

  it('a failed write fails the whole batch and stores nothing of it (no challenge kept without its session)', async () => {
    await backend.sessions.create(session(1));
    const recorder = backend.loginRecorder!;
    const outcomes = await Promise.allSettled([
      recorder.recordLogin(challenge(11), session(2)),
      recorder.recordLogin(challenge(12), session(1)), // duplicate session id: the insert fails
      recorder.recordLogin(challenge(13), session(4)),
    ]);
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({
        status: 'rejected',
        reason: { name: 'LoginRecordFailure', part: 'session' },
      });
    }
    const stored = await Promise.all([2, 4].map((n) => backend.sessions.get(session(n).sessionId)));
    expect(stored).toEqual([null, null]);
    // Every challenge of the batch is still unused.
    for (const n of [11, 12, 13]) {
      await expect(recorder.recordLogin(challenge(n), session(20 + n))).resolves.toEqual({ recorded: true });
      await backend.sessions.close(session(20 + n).sessionId, 'logout', 1000);
      await backend.sessions.sweep(1001);
    }
  });

  it('a transaction SQLite rolls back fails every login of the batch and stores nothing', async () => {
    const db = SqliteDatabase.openInDataDir(dir);
    try {
      // A trigger on another connection is not seen by the backend's; a persistent one is.
      db.statement(
        `CREATE TRIGGER fail_one_login BEFORE INSERT ON sessions WHEN NEW.session_id = '${session(2).sessionId}'
         BEGIN SELECT RAISE(ROLLBACK, 'rolled back'); END`,
      ).run();
    } finally {
      db.close();
    }
    const recorder = backend.loginRecorder!;
    const outcomes = await Promise.allSettled(
      [1, 2, 3].map((n) => recorder.recordLogin(challenge(30 + n), session(n))),
    );
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({
        status: 'rejected',
        reason: { name: 'LoginRecordFailure', part: 'session' },
      });
    }
    const check = SqliteDatabase.openInDataDir(dir);
    try {
      expect(check.statement('SELECT count(*) AS n FROM sessions').get()).toEqual({ n: 0 });
      expect(
        check.statement("SELECT count(*) AS n FROM replay_records WHERE key LIKE 'login|%'").get(),
      ).toEqual({ n: 0 });
    } finally {
      check.close();
    }
  });

  it('logins still queued when the store closes are written before the database closes', async () => {
    const pending = backend.loginRecorder!.recordLogin(challenge(21), session(21));
    backend.close();
    await expect(pending).resolves.toEqual({ recorded: true });
    const db = SqliteDatabase.openInDataDir(dir);
    try {
      expect(
        db.statement('SELECT count(*) AS n FROM sessions WHERE session_id = ?').get(session(21).sessionId),
      ).toEqual({ n: 1 });
    } finally {
      db.close();
    }
  });
});

describe('LoginRecorder (sqlite): a batch far from the session bound (no savepoint per login)', () => {
  let dir: string;
  let backend: StoreBackend;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'passport-login-recorder-'));
    // Two live replay records at most: the third challenge of a batch finds the store full.
    backend = createStoreBackend({ store: 'sqlite', dataDir: dir }, { replay: { maxEntries: 2 } });
  });
  afterEach(() => {
    backend.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const storedSessions = (ns: number[]) =>
    Promise.all(ns.map(async (n) => (await backend.sessions.get(session(n).sessionId)) !== null));

  it("a used challenge and a full replay store answer their login alone, having written nothing; the batch's others are stored", async () => {
    const recorder = backend.loginRecorder!;
    const outcomes = await Promise.allSettled([
      recorder.recordLogin(challenge(11), session(2)),
      recorder.recordLogin(challenge(11), session(3)), // used by the first of this batch
      recorder.recordLogin(challenge(12), session(4)),
      recorder.recordLogin(challenge(13), session(5)), // the replay store holds 2 records
    ]);
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: { recorded: true } });
    expect(outcomes[1]).toEqual({ status: 'fulfilled', value: { recorded: false, firstSeenAtMs: 1000 } });
    expect(outcomes[2]).toEqual({ status: 'fulfilled', value: { recorded: true } });
    expect(outcomes[3]).toMatchObject({
      status: 'rejected',
      reason: { name: 'PassportError', code: 'REPLAY_STORE_FULL' },
    });
    expect(await storedSessions([2, 3, 4, 5])).toEqual([true, false, true, false]);
    expect(await backend.sessions.countOpen(1000)).toBe(2);
    // The refused logins appended no record: the log holds the two recorded challenges alone.
    const db = SqliteDatabase.openInDataDir(dir);
    try {
      expect(db.statement('SELECT key FROM replay_records ORDER BY id').pluck().all()).toEqual([
        challenge(11).key,
        challenge(12).key,
      ]);
    } finally {
      db.close();
    }
  });

  it('a failed session write fails the whole batch and stores nothing of it', async () => {
    await backend.sessions.create(session(1));
    const recorder = backend.loginRecorder!;
    const outcomes = await Promise.allSettled([
      recorder.recordLogin(challenge(11), session(2)),
      recorder.recordLogin(challenge(12), session(1)), // duplicate session id: the insert fails
    ]);
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({
        status: 'rejected',
        reason: { name: 'LoginRecordFailure', part: 'session' },
      });
    }
    expect(await storedSessions([2])).toEqual([false]);
    // Both challenges of the batch are still unused.
    const again = await Promise.all([
      recorder.recordLogin(challenge(11), session(21)),
      recorder.recordLogin(challenge(12), session(22)),
    ]);
    expect(again).toEqual([{ recorded: true }, { recorded: true }]);
  });
});

describe('LoginRecorder (sqlite): a batch that cannot begin', () => {
  it('names the challenge for every login, as a login alone in its transaction would', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'passport-login-recorder-'));
    const db = SqliteDatabase.openInDataDir(dir, { busyTimeoutMs: 20 });
    const holder = SqliteDatabase.openInDataDir(dir);
    const replay = new SqliteReplayStore(db);
    const sessions = new SqliteSessionStore(db);
    try {
      const recorder = new SqliteLoginRecorder(db, replay, sessions);
      // Another connection holds the write lock: BEGIN IMMEDIATE times out.
      holder.statement('BEGIN IMMEDIATE').run();
      const alone = await recorder.recordLogin(challenge(1), session(1)).catch((e: unknown) => e);
      const together = await Promise.allSettled(
        [2, 3].map((n) => recorder.recordLogin(challenge(n), session(n))),
      );
      holder.statement('ROLLBACK').run();
      expect(alone).toMatchObject({ name: 'LoginRecordFailure', part: 'challenge' });
      for (const outcome of together) {
        expect(outcome).toMatchObject({
          status: 'rejected',
          reason: { name: 'LoginRecordFailure', part: 'challenge' },
        });
      }
    } finally {
      replay.dispose();
      sessions.dispose();
      holder.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sequentialLoginRecorder (stores without a combined write)', () => {
  const failingSessions = (): SessionStore => {
    const store = new MemorySessionStore();
    store.create = async () => {
      throw new Error('connection lost');
    };
    return store;
  };

  it('a failing session write is a LoginRecordFailure of the session; without an undo the challenge stays used', async () => {
    const replay = new MemoryReplayStore();
    const recorder = sequentialLoginRecorder(replay, failingSessions());
    const failure = await recorder.recordLogin(challenge(1), session(1)).catch((e: unknown) => e);
    expect(failure).toMatchObject({ name: 'LoginRecordFailure', part: 'session' });
    await expect(replay.recordIfAbsent(challenge(1).key, 1000, 400_000)).resolves.toMatchObject({
      recorded: false,
    });
  });

  it('with an undo the challenge is unused again', async () => {
    const replay = new MemoryReplayStore();
    const recorder = sequentialLoginRecorder(replay, failingSessions(), (key) => replay.forget(key));
    await expect(recorder.recordLogin(challenge(1), session(1))).rejects.toMatchObject({ part: 'session' });
    await expect(replay.recordIfAbsent(challenge(1).key, 1000, 400_000)).resolves.toEqual({ recorded: true });
  });

  it("passes the replay store's refusals on unchanged and names the challenge for its failures", async () => {
    const full = new MemoryReplayStore({ maxEntries: 1 });
    await full.recordIfAbsent('other', 1000, 400_000);
    const refused = await sequentialLoginRecorder(full, new MemorySessionStore())
      .recordLogin(challenge(1), session(1))
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PassportError);
    expect((refused as PassportError).code).toBe('REPLAY_STORE_FULL');
    const broken = new MemoryReplayStore();
    broken.recordIfAbsent = async () => {
      throw new Error('down');
    };
    await expect(
      sequentialLoginRecorder(broken, new MemorySessionStore()).recordLogin(challenge(1), session(1)),
    ).rejects.toMatchObject({
      part: 'challenge',
    });
  });
});

describe('LoginRecorder (sqlite): the replay index learns the used challenges', () => {
  // Found in review of the replay log (schema 7): a login's transaction did not let the replay store's
  // index catch up, so on a server that only logs in, every login read every challenge row written since
  // the start (the rows above the last id the index had seen, which never moved).
  it("each login's transaction first catches up on the log, so it reads only its own rows", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'passport-login-recorder-'));
    const db = SqliteDatabase.openInDataDir(dir);
    const replay = new SqliteReplayStore(db, { sweepIntervalMs: 0 });
    const sessions = new SqliteSessionStore(db, { sweepIntervalMs: 0 });
    const recorder = new SqliteLoginRecorder(db, replay, sessions);
    const indexed = () => (replay as unknown as { known: Map<string, unknown> }).known.size;
    try {
      for (let n = 1; n <= 5; n++) {
        expect(await recorder.recordLogin(challenge(n), session(n))).toEqual({ recorded: true });
        // Known: every login before this one (this one's row is read back by the next transaction).
        expect(indexed()).toBe(n - 1);
      }
      // Two logins in one turn (one transaction, a savepoint each), the second a replay of the first.
      const [first, second] = await Promise.all([
        recorder.recordLogin(challenge(6), session(6)),
        recorder.recordLogin(challenge(6), session(7)),
      ]);
      expect([first, second]).toEqual([{ recorded: true }, { recorded: false, firstSeenAtMs: 1000 }]);
      expect(await recorder.recordLogin(challenge(3), session(8))).toEqual({
        recorded: false,
        firstSeenAtMs: 1000,
      });
    } finally {
      recorder.dispose();
      replay.dispose();
      sessions.dispose();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
