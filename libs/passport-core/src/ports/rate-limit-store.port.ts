/**
 * @module ports/rate-limit-store.port
 * Token buckets for rate limits (public routes per client address, JWT routes per passport).
 */
export interface BucketPolicy {
  /** Maximum tokens (the burst). */
  readonly capacity: number;
  /** Tokens added per millisecond (sustained rate). */
  readonly refillPerMs: number;
}

export interface TakeResult {
  readonly allowed: boolean;
  /** Tokens left after this take. */
  readonly remaining: number;
  /** Milliseconds until one token is available again (0 when allowed). */
  readonly retryAfterMs: number;
}

export interface RateLimitStore {
  /**
   * Atomically takes `cost` tokens (default 1) from the bucket `key`: all of them or none. A refusal takes
   * nothing, and its `retryAfterMs` is the wait until `cost` tokens exist (a cost above the capacity is
   * never allowed). A batch of N requests is one take of N, not N takes of one: concurrent batches
   * interleaving their single takes each ran short partway, and none was served.
   */
  take(key: string, policy: BucketPolicy, nowMs: number, cost?: number): Promise<TakeResult>;
}

/**
 * A store whose buckets live in this process, so a take is decided at once: a caller on a hot path
 * (the public limit runs on every request) takes without allocating and awaiting a promise.
 */
export interface SyncRateLimitStore extends RateLimitStore {
  /** The same take as `take`, answered synchronously. */
  takeSync(key: string, policy: BucketPolicy, nowMs: number, cost?: number): TakeResult;
}
