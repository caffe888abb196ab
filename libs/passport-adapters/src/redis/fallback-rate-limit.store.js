export class FallbackRateLimitStore {
    constructor(primary, fallback, retryAfterMs = 1000, now = Date.now) {
        this.primary = primary;
        this.fallback = fallback;
        this.retryAfterMs = retryAfterMs;
        this.now = now;
        this.failedAtMs = null;
    }
    async take(key, policy, nowMs) {
        if (this.failedAtMs !== null && this.now() - this.failedAtMs < this.retryAfterMs) {
            return this.fallback.take(key, policy, nowMs);
        }
        try {
            const result = await this.primary.take(key, policy, nowMs);
            this.failedAtMs = null;
            return result;
        }
        catch {
            this.failedAtMs = this.now();
            return this.fallback.take(key, policy, nowMs);
        }
    }
    /** Wall-clock time since when takes fall back to in-process buckets, or null when they are shared. */
    get fallbackSince() {
        return this.failedAtMs;
    }
}
//# sourceMappingURL=fallback-rate-limit.store.js.map