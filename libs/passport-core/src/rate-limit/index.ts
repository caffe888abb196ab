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
  type BucketState,
  type MutableBucketState,
} from './token-bucket.js';
