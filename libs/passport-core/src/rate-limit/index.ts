/**
 * @module @passport/core/rate-limit
 * The token-bucket rule every RateLimitStore applies (one rule, so every store limits alike).
 */

// Token buckets
export { takeToken, isBucketFull, policyPerWindow, type BucketState } from './token-bucket.js';
