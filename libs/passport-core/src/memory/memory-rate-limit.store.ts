/**
 * @module memory/memory-rate-limit.store
 * Single-instance RateLimitStore on a Map of token buckets (arithmetic in rate-limit/token-bucket),
 * capped at `maxKeys`. When full, buckets that have refilled completely are dropped first (forgetting
 * them changes nothing); if still full, the least recently used bucket is dropped. Trade-off: a flood
 * of distinct keys larger than the cap resets the oldest buckets to full, so a client being limited
 * could regain its burst; `evictedActive` counts these. Size the cap above the number of distinct
 * clients active within one refill period.
 */
import {
  type BucketPolicy,
  type SyncRateLimitStore,
  type TakeResult,
} from '../ports/rate-limit-store.port.js';
import {
  isBucketFull,
  takeToken,
  takeTokenInPlace,
  type MutableBucketState,
} from '../rate-limit/token-bucket.js';
import { positiveCap } from '../ports/store-cap.js';

export interface MemoryRateLimitStoreOptions {
  /** Maximum buckets held (default 100 000). */
  readonly maxKeys?: number | undefined;
  /** Minimum store time between full sweeps triggered by a full store (default 1000 ms). */
  readonly sweepIntervalMs?: number | undefined;
}

/** One bucket, updated in place by each take (the public limit takes on every request). */
interface StoredBucket {
  readonly state: MutableBucketState;
  policy: BucketPolicy;
}

export class MemoryRateLimitStore implements SyncRateLimitStore {
  readonly maxKeys: number;
  private readonly sweepIntervalMs: number;
  /** Map order = least recently used first (a take re-inserts its key). */
  private readonly buckets = new Map<string, StoredBucket>();
  private lastSweepMs = Number.NEGATIVE_INFINITY;
  private evictedActiveCount = 0;

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    this.maxKeys = positiveCap(options.maxKeys ?? 100_000, 'maxKeys');
    this.sweepIntervalMs = options.sweepIntervalMs ?? 1000;
  }

  async take(key: string, policy: BucketPolicy, nowMs: number, cost = 1): Promise<TakeResult> {
    return this.takeSync(key, policy, nowMs, cost);
  }

  takeSync(key: string, policy: BucketPolicy, nowMs: number, cost = 1): TakeResult {
    const bucket = this.buckets.get(key);
    if (bucket === undefined) {
      const { state, result } = takeToken(undefined, policy, nowMs, cost);
      this.makeRoom(nowMs);
      this.buckets.set(key, { state: { tokens: state.tokens, updatedAtMs: state.updatedAtMs }, policy });
      return result;
    }
    // Re-inserted: the end of the map's order is the most recently used.
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    bucket.policy = policy;
    return takeTokenInPlace(bucket.state, policy, nowMs, cost);
  }

  /** Drops buckets that have refilled completely; returns how many. */
  sweep(nowMs: number): number {
    this.lastSweepMs = nowMs;
    let removed = 0;
    for (const [key, bucket] of this.buckets) {
      if (isBucketFull(bucket.state, bucket.policy, nowMs)) {
        this.buckets.delete(key);
        removed++;
      }
    }
    return removed;
  }

  get size(): number {
    return this.buckets.size;
  }

  /** How many buckets that were not yet full were dropped because the store was full. */
  get evictedActive(): number {
    return this.evictedActiveCount;
  }

  private makeRoom(nowMs: number): void {
    if (this.buckets.size < this.maxKeys) return;
    if (nowMs - this.lastSweepMs >= this.sweepIntervalMs) this.sweep(nowMs);
    while (this.buckets.size >= this.maxKeys) {
      const [oldestKey, oldest] = this.buckets.entries().next().value as [string, StoredBucket];
      this.buckets.delete(oldestKey);
      if (!isBucketFull(oldest.state, oldest.policy, nowMs)) this.evictedActiveCount++;
    }
  }
}
