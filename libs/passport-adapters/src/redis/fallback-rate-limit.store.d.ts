/**
 * Rate limiting that survives a Redis outage: takes go to the shared store; when it fails, to
 * in-process buckets (per instance, so a client may get up to N × the limit across N instances while
 * Redis is down: the choice between that and refusing everybody). After a failure the shared store is
 * tried again at most every `retryAfterMs`, so a down or slow Redis does not cost each request a
 * timeout, and takes return to it by themselves once it answers. `fallbackSince` feeds health.
 */
import { type BucketPolicy, type RateLimitStore, type TakeResult } from '@passport/core/ports';
export declare class FallbackRateLimitStore implements RateLimitStore {
    private readonly primary;
    private readonly fallback;
    private readonly retryAfterMs;
    private readonly now;
    private failedAtMs;
    constructor(primary: RateLimitStore, fallback: RateLimitStore, retryAfterMs?: number, now?: () => number);
    take(key: string, policy: BucketPolicy, nowMs: number): Promise<TakeResult>;
    /** Wall-clock time since when takes fall back to in-process buckets, or null when they are shared. */
    get fallbackSince(): number | null;
}
