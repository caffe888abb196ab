/**
 * @module @passport/core/rate-limit
 * The token-bucket rule every RateLimitStore applies (one rule, so every store limits alike).
 */

// Token buckets
export {
  takeToken,
  takeTokenInPlace,
  isBucketFull,
  policyPerWindow,
  BUCKET_CLOCK_LAG_TOLERANCE_MS,
  type BucketState,
  type MutableBucketState,
} from './token-bucket.js';
