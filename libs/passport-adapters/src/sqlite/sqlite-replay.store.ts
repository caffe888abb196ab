/**
 * ReplayStore on SQLite (table `replay_records`). `recordIfAbsent` reads, replaces an expired record and
 * inserts inside one `BEGIN IMMEDIATE` transaction, so it is atomic across every connection to the file:
 * of N concurrent calls with one key, from one process or several, exactly one is `recorded`.
 *
 * Bounded without giving up protection: a background sweep deletes expired records, and a live record
 * is never evicted. An insert into a table holding `maxEntries` records (default 1 000 000, about
 * 100 MB of database) first deletes expired ones, and if none can go the record is refused with
 * `REPLAY_STORE_FULL`; a record charged to an owner that already holds `maxPerOwner` live records is
 * refused with `REPLAY_QUOTA_EXCEEDED`. Both are thrown, so the caller fails closed.
 */
import { PassportError, systemClock, type ReplayStore } from '@passport/core';
import { type RecordOutcome, type RecordQuota, type ReplayStoreUsage } from '@passport/core/ports';
import { type SqliteDatabase } from './sqlite.database.js';
import { startPeriodicSweep, type PeriodicSweep } from '../sweep/periodic-sweep.js';
import {
  DEFAULT_SWEEP_INTERVAL_MS,
  positiveInteger,
  type SqliteStoreOptions,
} from './sqlite-store.options.js';

export const DEFAULT_REPLAY_MAX_ENTRIES = 1_000_000;

interface ReplayRow {
  readonly first_seen_ms: number;
  readonly expires_at_ms: number;
}

const RECORDED: RecordOutcome = Object.freeze({ recorded: true });

/** A new record the store cannot take (counted, then thrown outside the transaction). */
class Refusal {
  constructor(readonly error: PassportError) {}
}

export class SqliteReplayStore implements ReplayStore {
  readonly maxEntries: number;
  private readonly sweeper: PeriodicSweep;
  private refusedFullCount = 0;
  private refusedQuotaCount = 0;
  private lastFullAtMs: number | null = null;
  private lastFailure: number | null = null;

  constructor(
    private readonly db: SqliteDatabase,
    options: SqliteStoreOptions = {},
  ) {
    this.maxEntries = positiveInteger(options.maxEntries ?? DEFAULT_REPLAY_MAX_ENTRIES, 'maxEntries');
    const clock = options.clock ?? systemClock;
    this.sweeper = startPeriodicSweep(
      () => this.sweep(clock.nowMs()),
      options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS,
      options.onSweepError,
    );
  }

  async recordIfAbsent(key: string, nowMs: number, expiresAtMs: number, quota?: RecordQuota): Promise<RecordOutcome> {
    return this.recordIfAbsentSync(key, nowMs, expiresAtMs, quota);
  }

  /** `recordIfAbsent` on the calling stack: inside another transaction on this database it joins it (a savepoint). */
  recordIfAbsentSync(key: string, nowMs: number, expiresAtMs: number, quota?: RecordQuota): RecordOutcome {
    // Fast path for replays: a live record seen outside the write lock was live at that moment, which is
    // all a refusal needs; only a possible insert takes the lock.
    let outcome: RecordOutcome | Refusal;
    try {
      outcome = this.record(key, nowMs, expiresAtMs, quota);
    } catch (error) {
      this.lastFailure = nowMs; // health reports it (corrupt pages, a lost file, a lock held too long)
      throw error;
    }
    if (!(outcome instanceof Refusal)) return outcome;
    if (outcome.error.code === 'REPLAY_STORE_FULL') {
      this.refusedFullCount++;
      this.lastFullAtMs = nowMs;
    } else {
      this.refusedQuotaCount++;
    }
    throw outcome.error;
  }

  /** Store time of the last request this store failed to serve (not a refusal), or null. */
  get lastFailureAtMs(): number | null {
    return this.lastFailure;
  }

  private record(key: string, nowMs: number, expiresAtMs: number, quota: RecordQuota | undefined): RecordOutcome | Refusal {
    const seen = this.find(key);
    if (seen && seen.expires_at_ms > nowMs) return { recorded: false, firstSeenAtMs: seen.first_seen_ms };
    return this.db.immediate((): RecordOutcome | Refusal => {
      const existing = this.find(key);
      if (existing && existing.expires_at_ms > nowMs)
        return { recorded: false, firstSeenAtMs: existing.first_seen_ms };
      // An expired record is replaced by a new row.
      if (existing) this.db.statement('DELETE FROM replay_records WHERE key = ?').run(key);
      // A refusal is returned, not thrown, so that the expired rows deleted on the way stay deleted.
      const refusal = (quota && this.checkQuota(quota, nowMs)) ?? this.checkRoom(nowMs);
      if (refusal) return refusal;
      this.db
        .statement('INSERT INTO replay_records (key, first_seen_ms, expires_at_ms, owner) VALUES (?, ?, ?, ?)')
        .run(key, nowMs, expiresAtMs, quota?.owner ?? null);
      return RECORDED;
    });
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

  /** Stops the background sweep (the database is closed by its owner). */
  dispose(): void {
    this.sweeper.stop();
  }

  private find(key: string): ReplayRow | undefined {
    return this.db
      .statement('SELECT first_seen_ms, expires_at_ms FROM replay_records WHERE key = ?')
      .get(key) as ReplayRow | undefined;
  }

  private ownerCount(owner: string): number {
    return (this.db.statement('SELECT n FROM replay_owner_counts WHERE owner = ?').pluck().get(owner) as number | undefined) ?? 0;
  }

  private checkQuota(quota: RecordQuota, nowMs: number): Refusal | undefined {
    if (this.ownerCount(quota.owner) < quota.maxPerOwner) return undefined;
    // The count includes expired records not yet swept: drop this owner's before refusing.
    this.db.statement('DELETE FROM replay_records WHERE owner = ? AND expires_at_ms <= ?').run(quota.owner, nowMs);
    if (this.ownerCount(quota.owner) < quota.maxPerOwner) return undefined;
    return new Refusal(new PassportError('REPLAY_QUOTA_EXCEEDED', { maxPerSender: quota.maxPerOwner }));
  }

  private checkRoom(nowMs: number): Refusal | undefined {
    if (this.db.rowCount('replay_records') < this.maxEntries) return undefined;
    this.sweep(nowMs);
    if (this.db.rowCount('replay_records') < this.maxEntries) return undefined;
    return new Refusal(new PassportError('REPLAY_STORE_FULL'));
  }
}
