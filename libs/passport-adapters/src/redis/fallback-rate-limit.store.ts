/**
 * Rate limiting that survives a Redis outage: takes go to the shared store; when it fails, to
 * in-process buckets (per instance, so a client may get up to N × the limit across N instances while
 * Redis is down: the choice between that and refusing everybody). After a failure the shared store is
 * tried again at most every `retryAfterMs`, so a down or slow Redis does not cost each request a
 * timeout, and takes return to it by themselves once it answers. `fallbackSince` feeds health.
 */
import { type BucketPolicy, type RateLimitStore, type TakeResult } from '@passport/core/ports';

export class FallbackRateLimitStore implements RateLimitStore {
  private failedAtMs: number | null = null;

  constructor(
    private readonly primary: RateLimitStore,
    private readonly fallback: RateLimitStore,
    private readonly retryAfterMs = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  async take(key: string, policy: BucketPolicy, nowMs: number): Promise<TakeResult> {
    if (this.failedAtMs !== null && this.now() - this.failedAtMs < this.retryAfterMs) {
      return this.fallback.take(key, policy, nowMs);
    }
    try {
      const result = await this.primary.take(key, policy, nowMs);
      this.failedAtMs = null;
      return result;
    } catch {
      this.failedAtMs = this.now();
      return this.fallback.take(key, policy, nowMs);
    }
  }

  /** Wall-clock time since when takes fall back to in-process buckets, or null when they are shared. */
  get fallbackSince(): number | null {
    return this.failedAtMs;
  }
}
