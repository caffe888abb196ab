/**
 * @module rate-limit/token-bucket
 * Pure token-bucket arithmetic shared by every RateLimitStore adapter (memory, SQLite, Redis), so
 * that all of them answer the same `remaining` and `retryAfterMs` for the same history.
 */
import { type BucketPolicy, type TakeResult } from '../ports/rate-limit-store.port.js';

const FLOAT_EPSILON = 1e-9;

/** The persisted state of one bucket. */
export interface BucketState {
  /** Tokens in the bucket at `updatedAtMs` (fractional while refilling). */
  readonly tokens: number;
  readonly updatedAtMs: number;
}

/** The bucket's level at `nowMs`: refilled since the last update, never above capacity. */
export function refillBucket(state: BucketState | undefined, policy: BucketPolicy, nowMs: number): number {
  if (!state) return policy.capacity;
  // A clock that steps backwards must not drain or overfill the bucket: elapsed time is never negative.
  const elapsed = Math.max(0, nowMs - state.updatedAtMs);
  return Math.min(policy.capacity, state.tokens + elapsed * policy.refillPerMs);
}

/**
 * How far a bucket's last update may be ahead of a take's clock and still be kept (60 s): within it, the
 * take runs a little behind (another instance's clock, a small step back); beyond it, the clock was set
 * back and the take's time is used (a bucket kept at an hour-ahead time would stay frozen for the hour).
 */
export const BUCKET_CLOCK_LAG_TOLERANCE_MS = 60_000;

/**
 * The bucket's time for a take at `nowMs`: never before its last update, within the lag tolerance. A take
 * by a clock that runs behind (another process's clock) leaves the update time where it was; writing the
 * earlier time would let the next take count the same interval again and refill twice (instances 2 s
 * apart taking turns would allow 60 of 60 from a bucket of 20).
 */
function bucketTime(state: BucketState | undefined, nowMs: number): number {
  if (state === undefined || state.updatedAtMs <= nowMs) return nowMs;
  return state.updatedAtMs - nowMs <= BUCKET_CLOCK_LAG_TOLERANCE_MS ? state.updatedAtMs : nowMs;
}

/** A bucket state its owner updates in place (`takeTokenInPlace`). */
export interface MutableBucketState {
  tokens: number;
  updatedAtMs: number;
}

/**
 * Takes `cost` tokens (one by default), all or none. A missing state is a full bucket. When refusing, the state is still returned with
 * the refilled level so that adapters may store it (or not: refusing never consumes a token).
 * `retryAfterMs` is the whole number of milliseconds until one full token exists; with a refill rate of 0
 * it is `Number.MAX_SAFE_INTEGER` (never).
 */
export function takeToken(
  state: BucketState | undefined,
  policy: BucketPolicy,
  nowMs: number,
  cost: number = 1,
): { readonly state: BucketState; readonly result: TakeResult } {
  const at = bucketTime(state, nowMs);
  const next: MutableBucketState = { tokens: 0, updatedAtMs: at };
  const result = takeAtLevel(refillBucket(state, policy, at), next, policy, at, at - nowMs, cost);
  return { state: next, result };
}

/**
 * `takeToken` on a bucket held in memory: the state is overwritten with the one `takeToken` would
 * return (the same arithmetic), so a take allocates nothing but its result.
 */
export function takeTokenInPlace(
  state: MutableBucketState,
  policy: BucketPolicy,
  nowMs: number,
  cost: number = 1,
): TakeResult {
  const at = bucketTime(state, nowMs);
  return takeAtLevel(refillBucket(state, policy, at), state, policy, at, at - nowMs, cost);
}

/**
 * Takes one token from a bucket refilled to `level` at bucket time `nowMs`, writing the new state into
 * `into`. `lagMs`: how far the taker's own clock is behind the bucket time; a refusal's `retryAfterMs`
 * counts on the taker's clock, so it includes the lag (else a lagging instance says "1 s" over and over).
 */
function takeAtLevel(
  level: number,
  into: MutableBucketState,
  policy: BucketPolicy,
  nowMs: number,
  lagMs: number,
  cost: number,
): TakeResult {
  into.updatedAtMs = nowMs;
  // Float tolerance both ways: the take at exactly `retryAfterMs` later must succeed.
  if (level >= cost - FLOAT_EPSILON) {
    const tokens = Math.max(0, level - cost);
    into.tokens = tokens;
    return { allowed: true, remaining: Math.floor(tokens), retryAfterMs: 0 };
  }
  into.tokens = level;
  const missing = cost - level;
  // The epsilon absorbs float error (1 - 0.999 is slightly above 0.001), so a whole-ms answer stays whole.
  // A cost above the capacity never fits: no wait is enough.
  const retryAfterMs =
    policy.refillPerMs > 0 && cost <= policy.capacity
      ? Math.max(1, Math.ceil(missing / policy.refillPerMs - FLOAT_EPSILON)) + lagMs
      : Number.MAX_SAFE_INTEGER;
  return { allowed: false, remaining: Math.floor(level + FLOAT_EPSILON), retryAfterMs };
}

/** True when the bucket has refilled completely, so forgetting it changes nothing (safe to evict). */
export function isBucketFull(state: BucketState, policy: BucketPolicy, nowMs: number): boolean {
  return refillBucket(state, policy, nowMs) >= policy.capacity;
}

/** A policy of `count` requests per `windowMs`, with a burst of `count` (used for passport max_requests). */
export function policyPerWindow(count: number, windowMs: number): BucketPolicy {
  return { capacity: count, refillPerMs: count / windowMs };
}
