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
  /** Atomically takes one token from the bucket `key`. */
  take(key: string, policy: BucketPolicy, nowMs: number): Promise<TakeResult>;
}

/**
 * A store whose buckets live in this process, so a take is decided at once: a caller on a hot path
 * (the public limit runs on every request) takes without allocating and awaiting a promise.
 */
export interface SyncRateLimitStore extends RateLimitStore {
  /** The same take as `take`, answered synchronously. */
  takeSync(key: string, policy: BucketPolicy, nowMs: number): TakeResult;
}
