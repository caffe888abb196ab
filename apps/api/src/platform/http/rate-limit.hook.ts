/**
 * The public rate limit (docs/protocol.md §7): one token bucket per client address (capacity 6101, refill
 * 1101 per minute by default), kept in the `RateLimitStore` port so that several instances share it.
 * It is a Fastify `onRequest` hook rather than @nestjs/throttler: it runs before routing and body
 * parsing (the cheapest place to refuse, and it also covers 404/415 traffic), and the throttler's
 * storage contract counts hits in windows, while the port is an atomic token-bucket `take`.
 * The client address is `request.ip`: the TCP peer, or the right-most untrusted `X-Forwarded-For`
 * entry when the peer is one of TRUSTED_PROXIES (Fastify `trustProxy` with that CIDR list).
 */
import { type Clock, PassportError } from '@passport/core';
import { type BucketPolicy, type RateLimitStore } from '@passport/core/ports';
import { type FastifyRequest } from 'fastify';
import { type RateLimitConfig } from '../config/app-config.js';

export function bucketPolicy(config: RateLimitConfig): BucketPolicy {
  return { capacity: config.capacity, refillPerMs: config.refillPerMinute / 60_000 };
}

export function createRateLimitHook(store: RateLimitStore, config: RateLimitConfig, clock: Clock) {
  const policy = bucketPolicy(config);
  return async function rateLimit(request: FastifyRequest): Promise<void> {
    let allowed = true;
    let retryAfterMs = 0;
    try {
      const result = await store.take(`public:${request.ip}`, policy, clock.nowMs());
      allowed = result.allowed;
      retryAfterMs = result.retryAfterMs;
    } catch (err) {
      // Fail open: an unavailable counter store must not take the API down (it is logged and the
      // store's health check reports it).
      request.log.warn({ err }, 'rate limit store unavailable; request allowed');
    }
    if (!allowed) {
      throw new PassportError('RATE_LIMIT_EXCEEDED', {
        retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
      });
    }
  };
}
