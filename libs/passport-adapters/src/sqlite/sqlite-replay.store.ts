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
 * The table is a log (schema 7): records are appended in id order and nothing indexes their keys, since
 * a unique index on random keys wrote one more random 4 KiB page per record (the cost of a record on the
 * verify path). Each store keeps an index of the log in memory (key → id, first seen, expiry), and
 * decides under the write lock: it first reads the rows above the last id it saw (other processes'
 * records; usually none, found by one read of the log's sequence), then checks the key against its index
 * and the transaction's own new records, then appends. Ids are never given twice (AUTOINCREMENT) and
 * writers take turns, so the rows above the last id seen are all a connection has not yet seen. A log
 * that went back (its sequence below the last id seen, or the newest row read now holding another key:
 * a copy of the file restored under this store), or another database's identity, is a loss: the
 * database's history holds, as for a new database found at start, and the log is read again from its
 * start while the index keeps what it knew. The index holds what the log holds
 * (ReplayLogIndex: about 117 bytes per record, 113 MiB per process at 1 000 000 records) and is read
 * from the file when the store opens.
 *
 * Bounded without giving up protection: a background sweep deletes expired records, and a live record
 * is never evicted. An insert into a table holding `maxEntries` records (default 1 000 000, about
 * 170 MiB of database, WAL included) first deletes expired ones, and if none can go the record is refused with
 * `REPLAY_STORE_FULL`; a record charged to an owner that already holds `maxPerOwner` live records is
 * refused with `REPLAY_QUOTA_EXCEEDED`. Both are thrown, so the caller fails closed. The counts are kept
 * by triggers in the database, so the caps hold across processes.
 */
import { PassportError, systemClock, type Clock, type ReplayStore } from '@passport/core';
import {
  positiveCap,
  RecordingPausedError,
  storeCap,
  uncappedRemoval,
  type RecordOutcome,
  type RecordQuota,
  type RemovalHorizon,
  type ReplayStoreUsage,
} from '@passport/core/ports';
import { performance } from 'node:perf_hooks';
import { ReplayLogIndex, type LoggedRecord } from './replay-log.index.js';
import { type SqliteDatabase } from './sqlite.database.js';
import { type SqliteStoreHistory } from './sqlite-store.history.js';
import {
  LOCK_RETRY_MAX_MS,
  LOCK_RETRY_MIN_MS,
  MAX_WAITING_WRITES,
  SqliteLockBusyError,
} from './write-lock.queue.js';
import { startPeriodicSweep, type PeriodicSweep } from '../sweep/periodic-sweep.js';
import { DEFAULT_SWEEP_INTERVAL_MS, type SqliteStoreOptions } from './sqlite-store.options.js';

export const DEFAULT_REPLAY_MAX_ENTRIES = 1_000_000;

/**
 * Least time between two group commits of `recordIfAbsent` calls under load. Measured on the verify
 * path (see docs/benchmarks.md): commits one turn apart carried 4.6 records each.
 */
/** A lone UTF-16 surrogate: UTF-8, the file's encoding, has none (it writes U+FFFD). */
const LONE_SURROGATES = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A key as the file stores it, so that the index of this connection and the rows other connections
 * read agree (an integrator's key with a lone surrogate was recorded once per connection): keys that
 * differ only in lone surrogates are one key, refused rather than recorded twice.
 */
function storedKey(key: string): string {
  return key.replace(LONE_SURROGATES, '\uFFFD');
}

export const DEFAULT_REPLAY_COMMIT_INTERVAL_MS = 1;

/**
 * The default of `expiredGraceMs`: how long after its expiry a record is deleted (by the sweeps, and to
 * make room at the cap or a sender's quota) and forgotten by the index. A decision may run seconds
 * after the time it decides at (a call waits up to busy_timeout, 5 s, for the write lock; a verification
 * takes its time before its chain reads), and must still find a record that was live at that time:
 * probes saw late calls accept keys twice when the record had been deleted by a later time, by another
 * process's sweep or by a call making room at its sender's quota.
 */
export const EXPIRED_GRACE_MS = 60_000;

/** Expired rows the background sweep deletes in one statement before the event loop turns. */
const SWEEP_STEP_ROWS = 2000;

/** The least index size at which the index is compared with the table (holdIndexBound). */
const MIN_BOUND_CHECK = 4096;
/** Default milliseconds between two background reads of the rows other connections appended. */
export const DEFAULT_REPLAY_FOLLOW_INTERVAL_MS = 1000;
/** Rows one turn of the background read takes in (~7 ms): the event loop turns between steps. */
const FOLLOW_STEP_ROWS = 5000;
/** How often a decision reads the history file for other processes' losses at most (ms). */
const HISTORY_REFRESH_MS = 1000;

/** A row of the log, read raw (id, key, first seen, expiry). */
type LogRow = [number, string, number, number];

/** What tells whether the log is still the one a store read (logState). */
type LogState = [top: number, atAnchor: string | null, gapFilled: boolean, storeId: string | null];

/**
 * A key's record among the rows above the last id seen (`logged`) or in the index: the first, unless the
 * index's expires later (a record kept after the log went back, which the log lost: the key's older row
 * must not shorten it; it is replaced through the row's id).
 */
function laterRecord(
  logged: LoggedRecord | undefined,
  known: LoggedRecord | undefined,
): LoggedRecord | undefined {
  if (logged === undefined || known === undefined || known.expiresAtMs <= logged.expiresAtMs)
    return logged ?? known;
  return { ...known, id: logged.id };
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
  /** `performance.now()` when the call was made: it waits for a held lock at most the busy timeout from then. */
  readonly since: number;
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
  readonly commitIntervalMs?: number | undefined;
  /**
   * The database's history (SqliteStoreHistory): while it has a `problem` (the hold after a loss of
   * replay records) nothing is recorded, and every call throws `RecordingPausedError`. The store tells
   * it of a loss it notices while running (`lost`), and has it read the losses other processes recorded
   * (`refresh`) with each background read.
   */
  readonly history?:
    | (Pick<SqliteStoreHistory, 'problem' | 'holdRemainingMs' | 'lost' | 'refresh'> &
        Partial<Pick<SqliteStoreHistory, 'lostAtMs'>>)
    | undefined;
  /**
   * Milliseconds after its expiry that a record may be deleted or forgotten (default `EXPIRED_GRACE_MS`,
   * 60 000; 0 deletes at expiry, as the port's contract counts time). Until then it still takes room.
   */
  readonly expiredGraceMs?: number | undefined;
  /**
   * Milliseconds between two background reads of the rows other connections appended to the log
   * (default 1000; 0: read only before this store's own decisions). A store that decides rarely beside
   * busy ones otherwise reads their whole backlog before its next decision, on the event loop (~1.4 s at
   * 1 000 000 rows); followed in the background, it reads at most a second's worth then. The background
   * read takes `FOLLOW_STEP_ROWS` rows a turn.
   */
  readonly followIntervalMs?: number | undefined;
  /**
   * Caps the time records are deleted and forgotten by (default: none, the store clock's reading). A
   * server passes `createRemovalHorizon()`: a wall clock stepped ahead and then back cannot delete
   * records still live by the true time.
   */
  readonly removalHorizon?: RemovalHorizon | undefined;
}

export class SqliteReplayStore implements ReplayStore {
  readonly maxEntries: number;
  private readonly commitIntervalMs: number;
  private readonly sweeper: PeriodicSweep;
  private readonly follower: PeriodicSweep;
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
  /** The log as far as this store has read it: each key's newest record. */
  private readonly known = new ReplayLogIndex();
  /** The highest id of the log this store has read (every id up to it is in `known` or was deleted). */
  private lastSeenId = 0;
  /**
   * The newest row this store read or wrote: were the log to go back and give its id to another key,
   * that row no longer holds this key (how a store that did not see the sequence go below its last id,
   * because another process had written past it since, still knows).
   */
  private anchor: { readonly id: number; readonly key: string } | undefined;
  /** Since when (performance.now()) queued calls have found the write lock held elsewhere, or undefined. */
  private lockBusySince: number | undefined;
  /** The wait before the next try of a write lock held elsewhere (doubled each time, up to 50 ms). */
  private lockRetryMs = LOCK_RETRY_MIN_MS / 2;
  /** When (performance.now()) the history file was last read for other processes' losses. */
  private historyRefreshedAt = Number.NEGATIVE_INFINITY;
  /** The identity of the database this store reads (`store_meta.store_id`). */
  private storeId: string | undefined;
  /** When (store clock) this store last found the log as it had read it (SqliteStoreHistory.lost). */
  private intactAtMs: number;
  /** Index size at which it is next compared with the table (a whole scan, amortised by doubling). */
  private boundCheckAt = MIN_BOUND_CHECK;
  private readonly clock: Clock;
  private readonly expiredGraceMs: number;
  private readonly removalBy: RemovalHorizon;
  private readonly onSweepError: (error: unknown) => void;
  /** A background sweep's steps are under way. */
  private sweeping = false;
  /** A background read's steps are under way. */
  private following = false;
  private disposed = false;

  constructor(
    private readonly db: SqliteDatabase,
    options: SqliteReplayStoreOptions = {},
  ) {
    this.maxEntries = positiveCap(options.maxEntries ?? DEFAULT_REPLAY_MAX_ENTRIES, 'maxEntries');
    this.commitIntervalMs = options.commitIntervalMs ?? DEFAULT_REPLAY_COMMIT_INTERVAL_MS;
    this.history = options.history;
    if (!Number.isFinite(this.commitIntervalMs) || this.commitIntervalMs < 0)
      throw new RangeError('commitIntervalMs must be a non-negative number');
    this.expiredGraceMs = options.expiredGraceMs ?? EXPIRED_GRACE_MS;
    this.removalBy = options.removalHorizon ?? uncappedRemoval;
    if (!Number.isFinite(this.expiredGraceMs) || this.expiredGraceMs < 0)
      throw new RangeError('expiredGraceMs must be a non-negative number');
    const followIntervalMs = options.followIntervalMs ?? DEFAULT_REPLAY_FOLLOW_INTERVAL_MS;
    if (!Number.isFinite(followIntervalMs) || followIntervalMs < 0)
      throw new RangeError('followIntervalMs must be a non-negative number');
    const clock = (this.clock = options.clock ?? systemClock);
    // The whole log, read outside any write transaction: the first decision reads what came after it.
    // A log that cannot be read is read again by the first decision, which then fails (closed) as long
    // as it cannot. Damaged pages are noted on the database, so that health names them from the start
    // (a probe: it said ok until the first verify) and the server can refuse to start on them.
    this.intactAtMs = clock.nowMs();
    try {
      this.storeId = db.storeId;
      this.lastSeenId = this.readLog(0);
      this.boundCheckAt = Math.max(MIN_BOUND_CHECK, 2 * this.known.size);
    } catch (error) {
      db.noteDamage(error);
      this.lastSeenId = 0;
    }
    this.onSweepError = options.onSweepError ?? (() => undefined);
    this.sweeper = startPeriodicSweep(
      () => this.sweepInSteps(clock.nowMs()),
      options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS,
      options.onSweepError,
    );
    this.follower = startPeriodicSweep(() => this.followInSteps(), followIntervalMs);
  }

  /**
   * The background read: the rows other connections appended since the last id seen, taken into the
   * index `FOLLOW_STEP_ROWS` at a time outside the write lock (each step one read transaction), the
   * event loop turning between steps. A read that fails is left to the next decision, which fails
   * closed and is reported as long as it cannot read. Each read first looks for a loss another process
   * recorded in the history file.
   */
  private followInSteps(): void {
    if (this.following) return;
    this.following = true;
    this.refreshHistory();
    const step = (): void => {
      try {
        if (!this.disposed && this.db.isOpen && this.readAhead(FOLLOW_STEP_ROWS) === FOLLOW_STEP_ROWS) {
          setImmediate(step);
          return;
        }
      } catch {
        // Reported by the decision that meets it.
      }
      this.following = false;
    };
    step();
  }

  /**
   * The background sweep: the expired rows are deleted `SWEEP_STEP_ROWS` at a time, the event loop
   * turning between steps. One statement for all of them stopped it for ~1 s at 500 000 expired rows (a
   * probe), which a minute's expiries reach at ~8 000 verifies/s.
   */
  /** Records that expired before this (store clock, capped by the removal horizon) may go. */
  private expiredBy(nowMs: number): number {
    return this.removalBy(nowMs) - this.expiredGraceMs;
  }

  private sweepInSteps(nowMs: number): void {
    if (this.sweeping) return;
    this.sweeping = true;
    const expiredBy = this.expiredBy(nowMs);
    const step = (): void => {
      try {
        // A step never waits for another connection's write lock: the sweep ends, and the next one tries.
        const deleted =
          this.disposed || !this.db.isOpen
            ? undefined
            : this.db.ifLockFree(() => this.deleteExpired(expiredBy, SWEEP_STEP_ROWS));
        if (deleted?.result === SWEEP_STEP_ROWS) {
          setImmediate(step);
          return;
        }
        if (!this.disposed && this.db.isOpen && this.known.size > this.db.rowCount('replay_records'))
          this.known.forgetExpired(expiredBy);
      } catch (error) {
        this.onSweepError(error);
      }
      this.sweeping = false;
    };
    step();
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
    // While the lock is held elsewhere, as many calls wait at most as writes do in the database's queue
    // (each is a request in flight): a probe's 15 000 verifies under a held lock grew the heap 260 MB.
    if (this.lockBusySince !== undefined && this.pending.length >= MAX_WAITING_WRITES) {
      this.lastFailure = nowMs;
      return Promise.reject(
        new SqliteLockBusyError(`${MAX_WAITING_WRITES} replay records already wait for the lock`),
      );
    }
    const cap = storeCap(this.maxEntries, storeShare);
    return new Promise<RecordOutcome>((resolve, reject) => {
      this.pending.push({
        key: storedKey(key),
        nowMs,
        expiresAtMs,
        quota,
        cap,
        since: performance.now(),
        resolve,
        reject,
      });
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
      { key: storedKey(key), nowMs, expiresAtMs, quota, cap: storeCap(this.maxEntries, storeShare) },
      true,
    );
  }

  /**
   * A write transaction for a caller that records in it (`recordInTransaction`), as
   * `SqliteDatabase.immediate` runs it: before `work` writes anything, the index catches up on the log,
   * so each of the transaction's decisions reads only the rows the transaction itself wrote. (Begun
   * with `SqliteDatabase.immediate` instead, each decision would read every row since this store's own
   * last transaction.) Inside another transaction it is a savepoint, as `immediate` is.
   */
  immediate<T>(work: () => T): T {
    if (this.db.inTransaction) return this.db.immediate(work);
    this.readAhead();
    return this.db.immediate(() => {
      this.catchUp(this.clock.nowMs());
      return work();
    });
  }

  /**
   * `immediate` once the write lock is free (`SqliteDatabase.immediateWhenFree`: while another
   * connection holds it, the call waits on a timer with the event loop free): the login recorder's
   * group commits.
   */
  immediateWhenFree<T>(work: () => T): Promise<T> {
    if (this.db.inTransaction) return this.db.immediateWhenFree(work);
    try {
      this.readAhead();
    } catch (error) {
      return Promise.reject(error);
    }
    return this.db.immediateWhenFree(() => {
      this.catchUp(this.clock.nowMs());
      return work();
    });
  }

  /**
   * `recordIfAbsentSync` for a caller that holds a write transaction (or savepoint) of its own on this
   * database (the login recorder): no savepoint of its own, since the caller's covers every statement.
   * A refusal (thrown, or a live record's outcome) comes before anything is appended: only expired
   * records deleted on the way may have been written, which a caller may keep (the login recorder's
   * batch far from the session cap) or roll back with its own work.
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
      { key: storedKey(key), nowMs, expiresAtMs, quota, cap: storeCap(this.maxEntries, storeShare) },
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
      if (ownTransaction && !this.db.inTransaction) {
        this.readAhead();
        const decided = this.db.immediate(() => this.decide([call], true));
        this.committed(decided.appended, call.nowMs);
        outcome = decided.outcomes[0];
      } else {
        // Inside the caller's transaction, which may still roll back: the index learns of this record
        // from the log once it is committed.
        outcome = ownTransaction
          ? this.db.immediate(() => this.decide([call], false).outcomes[0])
          : this.decide([call], false).outcomes[0];
      }
    } catch (error) {
      // Health reports it (corrupt pages, a lost file, a lock held too long); a hold, health reports itself.
      if (!(error instanceof RecordingPausedError)) this.lastFailure = call.nowMs;
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

  /**
   * The group commit of the queued calls. The rows other connections appended are read ahead first,
   * `FOLLOW_STEP_ROWS` a turn, and the calls (with those made meanwhile) wait until a step finds fewer:
   * a process resumed after falling 200 000 rows behind read them all in its first verify, its event
   * loop stopped ~250 ms (a probe). The decision then reads under the write lock only what was
   * committed since, not the backlog (other processes' commits would wait for it).
   */
  private readonly flush = (): void => {
    clearTimeout(this.commitTimer);
    this.commitTimer = undefined;
    if (this.pending.length === 0) return;
    // Decisions look too, at most once a second: a store without background reads (followIntervalMs 0)
    // would otherwise never learn of a loss only another process could see (a review).
    if (performance.now() - this.historyRefreshedAt >= HISTORY_REFRESH_MS) this.refreshHistory();
    let behind = false;
    try {
      behind = this.readAhead(FOLLOW_STEP_ROWS) === FOLLOW_STEP_ROWS;
    } catch {
      // Left to the decision, which fails closed and is reported.
    }
    if (behind) setImmediate(this.flush);
    else this.decidePending();
  };

  /** Reads the losses other processes recorded in the history file (a stat when it has not changed). */
  private refreshHistory(): void {
    this.historyRefreshedAt = performance.now();
    try {
      this.history?.refresh();
    } catch {
      // Looked for again at the next read.
    }
  }

  /**
   * Decides every call queued since the last group commit in one transaction, then answers them. While
   * another connection holds the write lock, the calls wait on a timer (1, 2, 4 … 50 ms apart), the
   * event loop free, each until the lock is free or the database's busy timeout has passed since it was
   * made (then it fails, closed, as a write that waited that long would; the calls made after it wait
   * on). `waitForLock` false: waited on the calling stack (dispose), each group commit what is left of
   * its oldest call's busy timeout. (The clock once ran from when the first group commit found the lock
   * held, and restarted for the rest after that one failed: a probe's verifies under a lock held 30 s
   * failed 512 every 5 s and the rest waited the whole 30 s; and a dispose gave each group commit the
   * whole busy timeout on the thread.)
   */
  private decidePending(waitForLock = true): void {
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    this.lastCommitAt = performance.now();
    const waitMs = this.db.lockWaitMs;
    let start = 0;
    while (start < batch.length) {
      let end = Math.min(start + MAX_BATCH, batch.length);
      // The calls that have waited the busy timeout get their last try alone (the calls are in the order
      // they were made, so they come first); the later ones wait on if it finds the lock still held.
      const now = performance.now();
      const lastTry = waitForLock && now - batch[start].since >= waitMs;
      if (lastTry) {
        let expired = start + 1;
        while (expired < end && now - batch[expired].since >= waitMs) expired++;
        end = expired;
      }
      const chunk = start === 0 && end === batch.length ? batch : batch.slice(start, end);
      let outcomes: Array<RecordOutcome | Refusal>;
      try {
        this.readAhead(FOLLOW_STEP_ROWS);
        const decision = () => this.decide(chunk, true);
        const attempt = waitForLock
          ? this.db.immediateIfFree(decision, lastTry)
          : { result: this.db.immediateWaiting(decision, waitMs - (now - chunk[0].since)) };
        if (attempt === undefined) {
          // Tried again later, with the calls made meanwhile, in the order they were made.
          this.lockBusySince ??= performance.now();
          this.pending = [...batch.slice(start), ...this.pending];
          this.lockRetryMs = Math.min(this.lockRetryMs * 2, LOCK_RETRY_MAX_MS);
          clearTimeout(this.commitTimer);
          this.commitTimer = setTimeout(this.flush, this.lockRetryMs);
          return;
        }
        this.lockBusySince = undefined;
        this.lockRetryMs = LOCK_RETRY_MIN_MS / 2;
        const decided = attempt.result;
        this.committed(decided.appended, chunk[0].nowMs);
        outcomes = decided.outcomes;
      } catch (error) {
        // Health reports it (corrupt pages, a lost file, a lock held too long); a hold, health reports itself.
        if (!(error instanceof RecordingPausedError)) this.lastFailure = chunk[0].nowMs;
        for (const call of chunk) call.reject(error);
        start = end;
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
      start = end;
    }
    this.lockBusySince = undefined;
    this.lockRetryMs = LOCK_RETRY_MIN_MS / 2;
  }

  private countRefusal(refusal: Refusal, nowMs: number): void {
    if (refusal.atShareLimit) return; // not the store being full (health, metrics)
    if (refusal.error.code === 'REPLAY_STORE_FULL') {
      this.refusedFullCount++;
      this.lastFullAtMs = nowMs;
    } else {
      this.refusedQuotaCount++;
    }
  }

  /**
   * Decides `calls` in the open write transaction. `outermost`: the transaction is this store's own and
   * nothing of it is written yet, so the log read here is all committed and the index may learn it;
   * otherwise the rows above the last id seen (others' committed ones and the caller's transaction's own)
   * are only consulted.
   */
  private decide(
    calls: readonly RecordCall[],
    outermost: boolean,
  ): { outcomes: Array<RecordOutcome | Refusal>; appended: Map<string, LoggedRecord> } {
    let appended: Map<string, LoggedRecord>;
    if (outermost) {
      this.catchUp(calls[0].nowMs);
      appended = new Map();
    } else {
      appended = this.unseenRows();
    }
    // A loss noticed since the calls were made (here, or by a read ahead or another process) holds them.
    const paused = this.pausedError();
    if (paused) throw paused;
    // Nobody else writes while this transaction holds the write lock: the counts read once stay true as
    // long as the calls track their own inserts (the careful path drops them).
    const counts = new BatchCounts();
    return { outcomes: calls.map((call) => this.record(call, counts, appended)), appended };
  }

  /** One call's decision, in a write transaction; `appended` holds the transaction's new records. */
  private record(
    call: RecordCall,
    counts: BatchCounts,
    appended: Map<string, LoggedRecord>,
  ): RecordOutcome | Refusal {
    const { key, nowMs, quota, cap } = call;
    const owner = quota?.owner ?? null;
    const existing = laterRecord(appended.get(key), this.known.get(key));
    if (existing && existing.expiresAtMs > nowMs)
      return { recorded: false, firstSeenAtMs: existing.firstSeenAtMs };
    // Below both caps a new key is simply appended.
    if (
      !existing &&
      (counts.rows ??= this.db.rowCount('replay_records')) < cap &&
      (!quota || counts.owner(quota.owner, (o) => this.ownerCount(o)) < quota.maxPerOwner)
    ) {
      this.append(call, owner, appended);
      counts.inserted(owner);
      return RECORDED;
    }
    // The careful path may delete rows (expired ones): the batch's counts are read again after it.
    counts.forget();
    // An expired record is replaced by a new row.
    if (existing) this.db.statement('DELETE FROM replay_records WHERE id = ?').run(existing.id);
    // A refusal is returned, not thrown, so that the expired rows deleted on the way stay deleted.
    const refusal = (quota && this.checkQuota(quota, nowMs)) ?? this.checkRoom(nowMs, cap);
    if (refusal) return refusal;
    this.append(call, owner, appended);
    return RECORDED;
  }

  private append(
    { key, nowMs, expiresAtMs }: RecordCall,
    owner: string | null,
    appended: Map<string, LoggedRecord>,
  ): void {
    const { lastInsertRowid } = this.db
      .statement('INSERT INTO replay_records (key, first_seen_ms, expires_at_ms, owner) VALUES (?, ?, ?, ?)')
      .run(key, nowMs, expiresAtMs, owner);
    appended.set(key, { id: Number(lastInsertRowid), firstSeenAtMs: nowMs, expiresAtMs });
  }

  /**
   * Under the write lock of this store's own transaction, before anything is written: reads the rows
   * other connections appended since the last id seen (one read of the log's state when there are
   * none). A log that went back, or another database, is a loss (`logLost`): the calls are refused while
   * the history holds; without a hold the log is read again whole.
   */
  private catchUp(nowMs: number): void {
    const state = this.logState();
    const [top] = state;
    const change = this.logChange(state);
    if (change !== undefined) {
      this.logLost(change, state);
      const paused = this.pausedError();
      if (paused) throw paused; // the log is read again in steps, by the read ahead
    } else {
      this.logIntact(state);
      if (top === this.lastSeenId) {
        this.holdIndexBound(nowMs); // what readAhead read counts too
        return;
      }
    }
    this.readLog(this.lastSeenId);
    this.lastSeenId = top; // ids up to it that were not read were deleted (expired)
    this.holdIndexBound(nowMs);
  }

  /**
   * Before this store's own write transaction: reads the rows other connections appended since the last
   * id seen outside the write lock, so that the transaction's catchUp reads only what was committed
   * since (a review: a store deciding rarely beside busy ones read 200 000 rows in 278 ms under the
   * lock, every other process's commits waiting). A read sees committed rows only, and ids are given in
   * commit order (writers take turns), so it sees every row up to the highest it returns. At most
   * `limit` rows are read (all when negative); returns how many. A log that went back, or another
   * database, is a loss (`logLost`), and the log is read again from its start.
   *
   * The log's state and its rows are read in one snapshot (one read transaction): read apart, a log
   * that went back between the two reads and was written past the last id seen was read as a
   * continuation, and the keys given the ids at or below it again were accepted a second time (a probe).
   */
  private readAhead(limit = -1): number {
    if (this.db.inTransaction) return 0;
    return this.db.snapshot(() => {
      const state = this.logState();
      const change = this.logChange(state);
      if (change !== undefined) this.logLost(change, state);
      else {
        this.logIntact(state);
        if (state[0] === this.lastSeenId) return 0;
      }
      let read = 0;
      for (const [id, key, firstSeenAtMs, expiresAtMs] of this.db
        .statement(
          'SELECT id, key, first_seen_ms, expires_at_ms FROM replay_records WHERE id > ? ORDER BY id LIMIT ?',
        )
        .raw()
        .iterate(this.lastSeenId, limit) as IterableIterator<LogRow>) {
        this.known.learn(key, { id, firstSeenAtMs, expiresAtMs });
        this.anchor = { id, key };
        this.lastSeenId = id;
        read++;
      }
      this.holdIndexBound(this.clock.nowMs());
      return read;
    });
  }

  /**
   * Why the log is not the one this store read, or undefined: another database's identity; or the log
   * went back, its sequence below the last id seen, the anchor's id now holding another key (its row
   * gone is no sign: expired rows are deleted), or a row existing between the anchor and the last id
   * seen (ids this store moved past when their rows were gone).
   */
  private logChange([top, atAnchor, gapFilled, storeId]: LogState): string | undefined {
    const wentBack =
      'the replay log went back under the running process (a copy of the database restored in place?)';
    if (this.storeId !== undefined && storeId !== this.storeId)
      return `another database is in place (identity ${storeId}, where ${this.storeId} was read)`;
    if (top < this.lastSeenId)
      return `${wentBack}: its newest id is ${top}, below ${this.lastSeenId} read before`;
    if (atAnchor !== null && atAnchor !== this.anchor?.key)
      return `${wentBack}: the row of id ${this.anchor?.id} holds another key`;
    if (gapFilled)
      return `${wentBack}: a row was written again among ids ${this.anchor?.id ?? 0}..${this.lastSeenId}`;
    return undefined;
  }

  /** The log is the one this store read, as of now (its identity taken if it could not be read before). */
  private logIntact([, , , storeId]: LogState): void {
    this.intactAtMs = this.clock.nowMs();
    this.storeId ??= storeId ?? undefined;
  }

  /**
   * The log is not the one this store read: an older copy of the database restored under the running
   * process (the records made since the copy are gone, and processes that had not read them would
   * accept their lines again), or another database put in place. It fails closed as a start that finds a
   * new database does: the history holds (replay records refused for the hold), reports the loss once
   * and records it in its file, so that other processes and restarts hold too. The index keeps its
   * records (a line it knows stays refused here, after the hold too) but not their ids, which the log may
   * have given to other keys' rows, and the log is read again from its start.
   */
  private logLost(why: string, [, , , storeId]: LogState): void {
    this.known.forgetIds();
    this.lastSeenId = 0;
    this.anchor = undefined;
    this.storeId = storeId ?? undefined;
    this.history?.lost(why, this.intactAtMs);
  }

  /**
   * The rows above the last id seen, for a decision in a caller's transaction (committed by others, or
   * written by this transaction and not yet committed): consulted, not learnt, since the caller may
   * still roll back. A log that went back, or another database, is a loss (`logLost`), and without a
   * hold the log is consulted whole.
   */
  private unseenRows(): Map<string, LoggedRecord> {
    const rows = new Map<string, LoggedRecord>();
    const state = this.logState();
    const change = this.logChange(state);
    if (change !== undefined) this.logLost(change, state);
    else this.logIntact(state);
    for (const [id, key, firstSeenAtMs, expiresAtMs] of this.logAfter(this.lastSeenId))
      rows.set(key, { id, firstSeenAtMs, expiresAtMs });
    return rows;
  }

  /**
   * Keeps the index bounded by the log when other connections delete rows (their sweeps) and this store
   * does not sweep often or at all: once the index has doubled since the last look, an index larger than
   * the table drops its expired records (a whole scan, so amortised over the records that doubled it).
   */
  private holdIndexBound(nowMs: number): void {
    if (this.known.size < this.boundCheckAt) return;
    if (this.known.size > this.db.rowCount('replay_records')) this.known.forgetExpired(this.expiredBy(nowMs));
    this.boundCheckAt = Math.max(MIN_BOUND_CHECK, 2 * this.known.size);
  }

  /** After the commit of this store's own transaction: its records join the index. */
  private committed(appended: ReadonlyMap<string, LoggedRecord>, nowMs: number): void {
    for (const [key, record] of appended) {
      this.known.set(key, record);
      if (record.id > this.lastSeenId) {
        this.lastSeenId = record.id;
        this.anchor = { id: record.id, key };
      }
    }
    this.known.forgetExpiredOldest(this.expiredBy(nowMs));
    this.holdIndexBound(nowMs);
  }

  /** Reads the log's rows above `afterId` into the index; returns the highest id read (or `afterId`). */
  private readLog(afterId: number): number {
    let last = afterId;
    for (const [id, key, firstSeenAtMs, expiresAtMs] of this.logAfter(afterId)) {
      this.known.learn(key, { id, firstSeenAtMs, expiresAtMs });
      this.anchor = { id, key };
      last = id;
    }
    return last;
  }

  private logAfter(afterId: number): IterableIterator<LogRow> {
    return this.db
      .statement('SELECT id, key, first_seen_ms, expires_at_ms FROM replay_records WHERE id > ? ORDER BY id')
      .raw()
      .iterate(afterId) as IterableIterator<LogRow>;
  }

  /**
   * The highest id the log ever gave (0 before its first record); the key the anchor's id holds now;
   * whether a row now exists between the anchor and the last id seen, where every row had been deleted
   * when this store moved past them (so one there was written again: the log went back); and the
   * database's identity.
   */
  private logState(): LogState {
    const anchorId = this.anchor?.id ?? 0;
    const [top, atAnchor, gapFilled, storeId] = this.db
      .statement(
        "SELECT (SELECT seq FROM sqlite_sequence WHERE name = 'replay_records'), (SELECT key FROM replay_records WHERE id = ?), EXISTS (SELECT 1 FROM replay_records WHERE id > ? AND id <= ?), (SELECT value FROM store_meta WHERE name = 'store_id')",
      )
      .raw()
      .get(anchorId, anchorId, this.lastSeenId) as [number | null, string | null, number, string | null];
    return [top ?? 0, atAnchor, gapFilled === 1, storeId];
  }

  /**
   * Deletes expired records and drops them from the index; returns how many rows were removed. An index
   * larger than the table also holds records other connections deleted: it is then scanned whole (~15 ms
   * at 1 000 000 records), so that it stays bounded by what the log holds.
   */
  sweep(nowMs: number): number {
    const expiredBy = this.expiredBy(nowMs);
    const removed = this.deleteExpired(expiredBy);
    if (this.known.size > this.db.rowCount('replay_records')) this.known.forgetExpired(expiredBy);
    return removed;
  }

  /**
   * Deletes the rows expired by `expiredBy` (a time less the grace), dropping their keys' records from
   * the index when expired by then too; returns how many.
   */
  private deleteExpired(expiredBy: number, limit?: number): number {
    const keys = (
      limit === undefined
        ? this.db
            .statement('DELETE FROM replay_records WHERE expires_at_ms <= ? RETURNING key')
            .pluck()
            .all(expiredBy)
        : this.db
            .statement(
              'DELETE FROM replay_records WHERE id IN (SELECT id FROM replay_records WHERE expires_at_ms <= ? LIMIT ?) RETURNING key',
            )
            .pluck()
            .all(expiredBy, limit)
    ) as string[];
    // Only an expired record goes (a key recorded again since has a live one).
    for (const key of keys) this.known.forgetIfExpired(key, expiredBy);
    return keys.length;
  }

  /** When the last loss of the database's replay records was noticed (its history), or null. */
  lostRecordsAtMs(): number | null {
    return this.history?.lostAtMs ?? null;
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
    this.follower.stop();
    this.disposed = true;
    // Calls still queued are decided now, while the database is open (their owner closes it right
    // after); a waiting commit timer is cleared, and a scheduled flush finds nothing to do.
    clearTimeout(this.commitTimer);
    this.commitTimer = undefined;
    this.decidePending(false);
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
    this.deleteExpired(this.expiredBy(nowMs));
    if (this.ownerCount(quota.owner) < quota.maxPerOwner) return undefined;
    return new Refusal(new PassportError('REPLAY_QUOTA_EXCEEDED', { maxPerSender: quota.maxPerOwner }));
  }

  private checkRoom(nowMs: number, cap: number): Refusal | undefined {
    if (this.db.rowCount('replay_records') < cap) return undefined;
    this.deleteExpired(this.expiredBy(nowMs));
    if (this.db.rowCount('replay_records') < cap) return undefined;
    return new Refusal(new PassportError('REPLAY_STORE_FULL'), cap < this.maxEntries);
  }
}
