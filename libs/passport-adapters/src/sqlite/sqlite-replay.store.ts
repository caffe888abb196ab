/**
 * ReplayStore on SQLite (table `replay_records`). Every decision is made inside a `BEGIN IMMEDIATE`
 * transaction, so it is atomic across every connection to the file: of N concurrent calls with one key,
 * from one process or several, exactly one is `recorded`.
 *
 * Group commit: the calls made during one event-loop turn are decided in one transaction (one commit,
 * one write to the WAL, instead of one each: the commit, not the insert, was most of the cost). Each call
 * is answered only after that transaction has committed, with the outcome its own statements produced;
 * if the transaction fails, every call in it fails (nothing of it was recorded). Under load the commits
 * are also spaced `commitIntervalMs` apart (default 1 ms): a call arriving sooner after the last commit
 * waits for the rest of that interval, so one commit carries the calls of several turns (a commit's
 * fixed pages, the counts, the table's and the expiry index's last leaves, are then written once for
 * more records). A call arriving after a quiet interval is decided in the turn it came in, as before.
 *
 * The common case is one statement: while the table and the owner are below their caps, a prepared
 * `INSERT ... ON CONFLICT (key) DO NOTHING` decides by its change count (no read before the write). A
 * conflict, or a cap reached, takes the careful path: a live record is a replay, an expired one is
 * replaced.
 *
 * Bounded without giving up protection: a background sweep deletes expired records, and a live record
 * is never evicted. An insert into a table holding `maxEntries` records (default 1 000 000, about
 * 170 MiB of database, WAL included) first deletes expired ones, and if none can go the record is refused with
 * `REPLAY_STORE_FULL`; a record charged to an owner that already holds `maxPerOwner` live records is
 * refused with `REPLAY_QUOTA_EXCEEDED`. Both are thrown, so the caller fails closed. The counts are kept
 * by triggers in the database, so the caps hold across processes.
 */
import { PassportError, systemClock, type ReplayStore } from '@passport/core';
import {
  positiveCap,
  RecordingPausedError,
  storeCap,
  type RecordOutcome,
  type RecordQuota,
  type ReplayStoreUsage,
} from '@passport/core/ports';
import { performance } from 'node:perf_hooks';
import { type SqliteDatabase } from './sqlite.database.js';
import { type SqliteStoreHistory } from './sqlite-store.history.js';
import { startPeriodicSweep, type PeriodicSweep } from '../sweep/periodic-sweep.js';
import { DEFAULT_SWEEP_INTERVAL_MS, type SqliteStoreOptions } from './sqlite-store.options.js';

export const DEFAULT_REPLAY_MAX_ENTRIES = 1_000_000;

/**
 * Least time between two group commits of `recordIfAbsent` calls under load. Measured on the verify
 * path (see docs/benchmarks.md): commits one turn apart carried 4.6 records each.
 */
export const DEFAULT_REPLAY_COMMIT_INTERVAL_MS = 1;

interface ReplayRow {
  readonly first_seen_ms: number;
  readonly expires_at_ms: number;
}

const RECORDED: RecordOutcome = Object.freeze({ recorded: true });

/** Calls decided in one transaction at most (bounds the time the write lock is held). */
const MAX_BATCH = 512;

interface RecordCall {
  readonly key: string;
  readonly nowMs: number;
  readonly expiresAtMs: number;
  readonly quota: RecordQuota | undefined;
  /** Records held at which this one is refused (storeCap of the store's cap and the call's share). */
  readonly cap: number;
}

interface PendingRecord extends RecordCall {
  readonly resolve: (outcome: RecordOutcome) => void;
  readonly reject: (error: unknown) => void;
}

/** A new record the store cannot take (counted, then thrown outside the transaction). */
class Refusal {
  constructor(
    readonly error: PassportError,
    /** Refused at a share's own limit (subagent lines at half), not because the store is full. */
    readonly atShareLimit = false,
  ) {}
}

/**
 * The table's and the owners' record counts as one write transaction goes, read from the database the
 * first time each is needed and then kept up to date with the transaction's own inserts (each read is a
 * statement, and most of a batch's records change nothing but these counts).
 */
class BatchCounts {
  rows: number | undefined;
  private readonly owners = new Map<string, number>();

  owner(owner: string, read: (owner: string) => number): number {
    let n = this.owners.get(owner);
    if (n === undefined) this.owners.set(owner, (n = read(owner)));
    return n;
  }

  inserted(owner: string | null): void {
    if (this.rows !== undefined) this.rows++;
    if (owner === null) return;
    const n = this.owners.get(owner);
    if (n !== undefined) this.owners.set(owner, n + 1);
  }

  forget(): void {
    this.rows = undefined;
    this.owners.clear();
  }
}

export interface SqliteReplayStoreOptions extends SqliteStoreOptions {
  /**
   * Least milliseconds between two group commits of `recordIfAbsent` calls (default 1; 0 commits at the
   * end of every event-loop turn). A call waits at most this long for its commit.
   */
  readonly commitIntervalMs?: number;
  /**
   * The database's history (SqliteStoreHistory): while it has a `problem` (the hold after a new database
   * was found in place of the old) nothing is recorded, and every call throws `RecordingPausedError`.
   */
  readonly history?: Pick<SqliteStoreHistory, 'problem' | 'holdRemainingMs'>;
}

export class SqliteReplayStore implements ReplayStore {
  readonly maxEntries: number;
  private readonly commitIntervalMs: number;
  private readonly sweeper: PeriodicSweep;
  private refusedFullCount = 0;
  private refusedQuotaCount = 0;
  private lastFullAtMs: number | null = null;
  private lastFailure: number | null = null;
  private pending: PendingRecord[] = [];
  /** `performance.now()` when the last group commit began. */
  private lastCommitAt = -Infinity;
  /** The timer of a group commit waiting for the end of the commit interval. */
  private commitTimer: NodeJS.Timeout | undefined;
  private readonly history: SqliteReplayStoreOptions['history'];

  constructor(
    private readonly db: SqliteDatabase,
    options: SqliteReplayStoreOptions = {},
  ) {
    this.maxEntries = positiveCap(options.maxEntries ?? DEFAULT_REPLAY_MAX_ENTRIES, 'maxEntries');
    this.commitIntervalMs = options.commitIntervalMs ?? DEFAULT_REPLAY_COMMIT_INTERVAL_MS;
    this.history = options.history;
    if (!Number.isFinite(this.commitIntervalMs) || this.commitIntervalMs < 0)
      throw new RangeError('commitIntervalMs must be a non-negative number');
    const clock = options.clock ?? systemClock;
    this.sweeper = startPeriodicSweep(
      () => this.sweep(clock.nowMs()),
      options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS,
      options.onSweepError,
    );
  }

  recordIfAbsent(
    key: string,
    nowMs: number,
    expiresAtMs: number,
    quota?: RecordQuota,
    storeShare?: number,
  ): Promise<RecordOutcome> {
    const paused = this.pausedError();
    if (paused) return Promise.reject(paused);
    const cap = storeCap(this.maxEntries, storeShare);
    return new Promise<RecordOutcome>((resolve, reject) => {
      this.pending.push({ key, nowMs, expiresAtMs, quota, cap, resolve, reject });
      if (this.pending.length === 1) this.scheduleFlush();
    });
  }

  /** The group commit of the queued calls: at the end of this turn, or when the commit interval ends. */
  private scheduleFlush(): void {
    const wait = this.lastCommitAt + this.commitIntervalMs - performance.now();
    if (wait <= 0) setImmediate(this.flush);
    else this.commitTimer = setTimeout(this.flush, wait);
  }

  /**
   * One call decided on the calling stack, for a caller that writes more in the same transaction (a
   * login's used challenge and its session): inside another transaction on this database it joins it
   * (a savepoint), so both commit or neither does.
   */
  recordIfAbsentSync(
    key: string,
    nowMs: number,
    expiresAtMs: number,
    quota?: RecordQuota,
    storeShare?: number,
  ): RecordOutcome {
    return this.decideNow(
      { key, nowMs, expiresAtMs, quota, cap: storeCap(this.maxEntries, storeShare) },
      true,
    );
  }

  /**
   * `recordIfAbsentSync` for a caller that holds a write transaction (or savepoint) of its own on this
   * database and rolls it back if this throws (the login recorder): no savepoint of its own, since the
   * caller's already covers every statement, and a refusal thrown here undoes the caller's work too.
   */
  recordInTransaction(
    key: string,
    nowMs: number,
    expiresAtMs: number,
    quota?: RecordQuota,
    storeShare?: number,
  ): RecordOutcome {
    if (!this.db.inTransaction) throw new Error('recordInTransaction needs an open write transaction');
    return this.decideNow(
      { key, nowMs, expiresAtMs, quota, cap: storeCap(this.maxEntries, storeShare) },
      false,
    );
  }

  /**
   * One call decided on the calling stack, in a transaction of its own or the caller's. A refusal is
   * thrown after that transaction, so the expired rows deleted on the way stay deleted.
   */
  private decideNow(call: RecordCall, ownTransaction: boolean): RecordOutcome {
    const paused = this.pausedError();
    if (paused) throw paused;
    let outcome: RecordOutcome | Refusal;
    try {
      outcome = ownTransaction ? this.db.immediate(() => this.record(call)) : this.record(call);
    } catch (error) {
      this.lastFailure = call.nowMs; // health reports it (corrupt pages, a lost file, a lock held too long)
      throw error;
    }
    if (!(outcome instanceof Refusal)) return outcome;
    this.countRefusal(outcome, call.nowMs);
    throw outcome.error;
  }

  /** The decided refusal while the history holds (not a failure: health reports the hold itself). */
  private pausedError(): RecordingPausedError | undefined {
    const problem = this.history?.problem;
    return problem === undefined
      ? undefined
      : new RecordingPausedError(problem, this.history?.holdRemainingMs ?? 0);
  }

  /** Store time of the last request this store failed to serve (not a refusal), or null. */
  get lastFailureAtMs(): number | null {
    return this.lastFailure;
  }

  /** Decides every call queued since the last group commit in one transaction, then answers them. */
  private readonly flush = (): void => {
    clearTimeout(this.commitTimer);
    this.commitTimer = undefined;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    this.lastCommitAt = performance.now();
    for (let start = 0; start < batch.length; start += MAX_BATCH) {
      const chunk = start === 0 && batch.length <= MAX_BATCH ? batch : batch.slice(start, start + MAX_BATCH);
      let outcomes: Array<RecordOutcome | Refusal>;
      try {
        outcomes = this.db.immediate(() => {
          // Nobody else writes while this transaction holds the write lock: the counts read once stay
          // true as long as this batch tracks its own inserts (the careful path drops them).
          const counts = new BatchCounts();
          return chunk.map((call) => this.record(call, counts));
        });
      } catch (error) {
        this.lastFailure = chunk[0].nowMs; // health reports it (corrupt pages, a lost file, a lock held too long)
        for (const call of chunk) call.reject(error);
        continue;
      }
      for (let i = 0; i < chunk.length; i++) {
        const outcome = outcomes[i];
        if (!(outcome instanceof Refusal)) {
          chunk[i].resolve(outcome);
          continue;
        }
        this.countRefusal(outcome, chunk[i].nowMs);
        chunk[i].reject(outcome.error);
      }
    }
  };

  private countRefusal(refusal: Refusal, nowMs: number): void {
    if (refusal.atShareLimit) return; // not the store being full (health, metrics)
    if (refusal.error.code === 'REPLAY_STORE_FULL') {
      this.refusedFullCount++;
      this.lastFullAtMs = nowMs;
    } else {
      this.refusedQuotaCount++;
    }
  }

  /** One call's decision; runs inside a write transaction (the batch's, or the caller's). */
  private record(
    { key, nowMs, expiresAtMs, quota, cap }: RecordCall,
    counts = new BatchCounts(),
  ): RecordOutcome | Refusal {
    const owner = quota?.owner ?? null;
    // Below both caps an absent key is simply inserted: the change count says whether it was absent.
    if (
      (counts.rows ??= this.db.rowCount('replay_records')) < cap &&
      (!quota || counts.owner(quota.owner, (o) => this.ownerCount(o)) < quota.maxPerOwner) &&
      this.insertIfAbsent().run(key, nowMs, expiresAtMs, owner).changes === 1
    ) {
      counts.inserted(owner);
      return RECORDED;
    }
    // The careful path may delete rows (expired ones): the batch's counts are read again after it.
    counts.forget();
    const existing = this.find(key);
    if (existing && existing.expires_at_ms > nowMs)
      return { recorded: false, firstSeenAtMs: existing.first_seen_ms };
    // An expired record is replaced by a new row.
    if (existing) this.db.statement('DELETE FROM replay_records WHERE key = ?').run(key);
    // A refusal is returned, not thrown, so that the expired rows deleted on the way stay deleted.
    const refusal = (quota && this.checkQuota(quota, nowMs)) ?? this.checkRoom(nowMs, cap);
    if (refusal) return refusal;
    this.db
      .statement('INSERT INTO replay_records (key, first_seen_ms, expires_at_ms, owner) VALUES (?, ?, ?, ?)')
      .run(key, nowMs, expiresAtMs, owner);
    return RECORDED;
  }

  private insertIfAbsent() {
    return this.db.statement(
      'INSERT INTO replay_records (key, first_seen_ms, expires_at_ms, owner) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO NOTHING',
    );
  }

  /** Deletes expired records; returns how many were removed. */
  sweep(nowMs: number): number {
    return this.db.statement('DELETE FROM replay_records WHERE expires_at_ms <= ?').run(nowMs).changes;
  }

  /** Records in the table (including expired ones not yet swept). */
  get size(): number {
    return this.db.rowCount('replay_records');
  }

  /** Fill and refusals of this instance (a real read of the table's count). */
  usage(): ReplayStoreUsage {
    return {
      records: this.size,
      maxRecords: this.maxEntries,
      refusedFull: this.refusedFullCount,
      refusedQuota: this.refusedQuotaCount,
      lastFullAtMs: this.lastFullAtMs,
    };
  }

  /** Stops the background sweep and decides queued calls (the database is closed by its owner). */
  dispose(): void {
    this.sweeper.stop();
    // Calls still queued are decided now, while the database is open (their owner closes it right
    // after); a waiting commit timer is cleared, and a scheduled end-of-turn flush finds nothing to do.
    this.flush();
  }

  private find(key: string): ReplayRow | undefined {
    return this.db
      .statement('SELECT first_seen_ms, expires_at_ms FROM replay_records WHERE key = ?')
      .get(key) as ReplayRow | undefined;
  }

  private ownerCount(owner: string): number {
    return (
      (this.db.statement('SELECT n FROM replay_owner_counts WHERE owner = ?').pluck().get(owner) as
        number | undefined) ?? 0
    );
  }

  private checkQuota(quota: RecordQuota, nowMs: number): Refusal | undefined {
    if (this.ownerCount(quota.owner) < quota.maxPerOwner) return undefined;
    // The count includes expired records not yet swept: sweep them before refusing (every owner's,
    // through the expiry index: no index by owner is kept, since it cost every insert a page write).
    this.sweep(nowMs);
    if (this.ownerCount(quota.owner) < quota.maxPerOwner) return undefined;
    return new Refusal(new PassportError('REPLAY_QUOTA_EXCEEDED', { maxPerSender: quota.maxPerOwner }));
  }

  private checkRoom(nowMs: number, cap: number): Refusal | undefined {
    if (this.db.rowCount('replay_records') < cap) return undefined;
    this.sweep(nowMs);
    if (this.db.rowCount('replay_records') < cap) return undefined;
    return new Refusal(new PassportError('REPLAY_STORE_FULL'), cap < this.maxEntries);
  }
}
