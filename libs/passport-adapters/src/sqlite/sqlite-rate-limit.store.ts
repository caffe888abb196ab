/**
 * RateLimitStore on SQLite (table `rate_buckets`): token buckets shared by every process using the
 * database file. Each `take` reads the bucket, applies the core's token-bucket arithmetic
 * (`takeToken`, the same as every other adapter) and writes it back inside one `BEGIN IMMEDIATE`
 * transaction, so concurrent takes from several connections never lose an update.
 *
 * Bounded: each row records when its bucket is full again (`full_at_ms`); from then on the row means
 * the same as no row, and the background sweep deletes it. A take beyond `maxEntries` (default
 * 100 000) first sweeps, then evicts the least recently updated buckets (which resets them to full:
 * `evictedActive` counts those that were not full yet, so the cap can be sized above the number of
 * clients active within one refill period).
 */
import { systemClock } from '@passport/core';
import { takeToken, type BucketState } from '@passport/core/rate-limit';
import { positiveCap, type BucketPolicy, type RateLimitStore, type TakeResult } from '@passport/core/ports';
import { type SqliteDatabase } from './sqlite.database.js';
import { startPeriodicSweep, type PeriodicSweep } from '../sweep/periodic-sweep.js';
import { DEFAULT_SWEEP_INTERVAL_MS, type SqliteStoreOptions } from './sqlite-store.options.js';

export const DEFAULT_RATE_LIMIT_MAX_ENTRIES = 100_000;

interface BucketRow {
  readonly tokens: number;
  readonly updated_at_ms: number;
}

export class SqliteRateLimitStore implements RateLimitStore {
  readonly maxEntries: number;
  private readonly sweeper: PeriodicSweep;
  private evictedActiveCount = 0;

  constructor(
    private readonly db: SqliteDatabase,
    options: SqliteStoreOptions = {},
  ) {
    this.maxEntries = positiveCap(options.maxEntries ?? DEFAULT_RATE_LIMIT_MAX_ENTRIES, 'maxEntries');
    const clock = options.clock ?? systemClock;
    // The background sweep never waits for another connection's write lock: the next one tries.
    this.sweeper = startPeriodicSweep(
      () => this.db.ifLockFree(() => this.sweep(clock.nowMs())),
      options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS,
      options.onSweepError,
    );
  }

  /** Waits for the write lock on a timer, the event loop free, while another connection holds it. */
  take(key: string, policy: BucketPolicy, nowMs: number, cost = 1): Promise<TakeResult> {
    return this.db.immediateWhenFree((): TakeResult => {
      const row = this.db
        .statement('SELECT tokens, updated_at_ms FROM rate_buckets WHERE key = ?')
        .get(key) as BucketRow | undefined;
      const previous: BucketState | undefined = row
        ? { tokens: row.tokens, updatedAtMs: row.updated_at_ms }
        : undefined;
      const { state, result } = takeToken(previous, policy, nowMs, cost);
      this.db
        .statement(
          `INSERT INTO rate_buckets (key, tokens, updated_at_ms, full_at_ms) VALUES (?, ?, ?, ?)
           ON CONFLICT (key) DO UPDATE SET tokens = excluded.tokens, updated_at_ms = excluded.updated_at_ms,
             full_at_ms = excluded.full_at_ms`,
        )
        .run(key, state.tokens, state.updatedAtMs, fullAtMs(state, policy));
      if (!row) this.enforceCap(nowMs);
      return result;
    });
  }

  /** Deletes buckets that have refilled completely (forgetting them changes nothing); returns how many. */
  sweep(nowMs: number): number {
    return this.db.statement('DELETE FROM rate_buckets WHERE full_at_ms <= ?').run(nowMs).changes;
  }

  /** Buckets in the table (including full ones not yet swept). */
  get size(): number {
    return this.db.rowCount('rate_buckets');
  }

  /** How many buckets that were not yet full this instance evicted because the table was full. */
  get evictedActive(): number {
    return this.evictedActiveCount;
  }

  /** Stops the background sweep (the database is closed by its owner). */
  dispose(): void {
    this.sweeper.stop();
  }

  private enforceCap(nowMs: number): void {
    if (this.db.rowCount('rate_buckets') <= this.maxEntries) return;
    this.sweep(nowMs);
    const excess = this.db.rowCount('rate_buckets') - this.maxEntries;
    if (excess <= 0) return;
    this.db
      .statement(
        'DELETE FROM rate_buckets WHERE rowid IN (SELECT rowid FROM rate_buckets ORDER BY updated_at_ms, rowid LIMIT ?)',
      )
      .run(excess);
    this.evictedActiveCount += excess;
  }
}

/** Unix ms at which the bucket holds `capacity` tokens again (never, for a refill rate of 0). */
function fullAtMs(state: BucketState, policy: BucketPolicy): number {
  const missing = policy.capacity - state.tokens;
  if (missing <= 0) return state.updatedAtMs;
  if (!(policy.refillPerMs > 0)) return Number.MAX_SAFE_INTEGER;
  return Math.min(Number.MAX_SAFE_INTEGER, state.updatedAtMs + Math.ceil(missing / policy.refillPerMs));
}
