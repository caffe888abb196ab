/**
 * ReplayStore on SQLite (table `replay_records`). `recordIfAbsent` reads, replaces an expired record and
 * inserts inside one `BEGIN IMMEDIATE` transaction, so it is atomic across every connection to the file:
 * of N concurrent calls with one key, from one process or several, exactly one is `recorded`.
 *
 * Bounded: a background sweep deletes expired records, and an insert beyond `maxEntries` (default
 * 1 000 000, about 100 MB of database) evicts expired records first, then the oldest live ones. Evicting
 * a live record gives up its replay protection early; `evictedLive` counts those so the cap can be sized
 * (it must exceed the peak number of distinct nonces within a freshness window).
 */
import { systemClock, type ReplayStore } from '@passport/core';
import { type RecordOutcome } from '@passport/core/ports';
import { type SqliteDatabase } from './sqlite.database.js';
import { startPeriodicSweep, type PeriodicSweep } from './periodic-sweep.js';
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

export class SqliteReplayStore implements ReplayStore {
  readonly maxEntries: number;
  private readonly sweeper: PeriodicSweep;
  private evictedLiveCount = 0;

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

  async recordIfAbsent(key: string, nowMs: number, expiresAtMs: number): Promise<RecordOutcome> {
    // Fast path for replays: a live record seen outside the write lock was live at that moment, which is
    // all a refusal needs; only a possible insert takes the lock.
    const seen = this.find(key);
    if (seen && seen.expires_at_ms > nowMs) return { recorded: false, firstSeenAtMs: seen.first_seen_ms };
    return this.db.immediate((): RecordOutcome => {
      const existing = this.find(key);
      if (existing && existing.expires_at_ms > nowMs)
        return { recorded: false, firstSeenAtMs: existing.first_seen_ms };
      // An expired record is replaced by a new row, so that re-recorded keys count as the newest.
      if (existing) this.db.statement('DELETE FROM replay_records WHERE key = ?').run(key);
      this.db
        .statement('INSERT INTO replay_records (key, first_seen_ms, expires_at_ms) VALUES (?, ?, ?)')
        .run(key, nowMs, expiresAtMs);
      this.enforceCap(nowMs);
      return { recorded: true };
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

  /** How many unexpired records this instance evicted because the table was full. */
  get evictedLive(): number {
    return this.evictedLiveCount;
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

  private enforceCap(nowMs: number): void {
    if (this.db.rowCount('replay_records') <= this.maxEntries) return;
    this.sweep(nowMs);
    const excess = this.db.rowCount('replay_records') - this.maxEntries;
    if (excess <= 0) return;
    // rowid grows with insertion, so the smallest rowids are the oldest records.
    this.db
      .statement(
        'DELETE FROM replay_records WHERE rowid IN (SELECT rowid FROM replay_records ORDER BY rowid LIMIT ?)',
      )
      .run(excess);
    this.evictedLiveCount += excess;
  }
}
