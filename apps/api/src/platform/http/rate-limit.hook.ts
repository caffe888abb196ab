/**
 * The public rate limit (docs/protocol.md §7): one token bucket per client address (capacity 6101, refill
 * 1101 per minute by default), kept in the `RateLimitStore` port so that several instances share it.
 * It is a Fastify `onRequest` hook rather than @nestjs/throttler: it runs before routing and body
 * parsing (the cheapest place to refuse, and it also covers 404/415 traffic), and the throttler's
 * storage contract counts hits in windows, while the port is an atomic token-bucket `take`.
 * The client address is `request.ip`: the TCP peer, or the right-most untrusted `X-Forwarded-For`
 * entry when the peer is one of TRUSTED_PROXIES (Fastify `trustProxy` with that CIDR list), keyed
 * by its /64 when it is IPv6 (client-address.ts).
 */
import { type Clock, PassportError } from '@passport/core';
import {
  type BucketPolicy,
  type RateLimitStore,
  type SyncRateLimitStore,
  type TakeResult,
} from '@passport/core/ports';
import { type FastifyRequest } from 'fastify';
import { type RateLimitConfig } from '../config/app-config.js';
import { clientAddressKey } from './client-address.js';

export function bucketPolicy(config: RateLimitConfig): BucketPolicy {
  return { capacity: config.capacity, refillPerMs: config.refillPerMinute / 60_000 };
}

/**
 * Checks one request against its address's bucket: throws RATE_LIMIT_EXCEEDED when refused. With an
 * in-process store it decides at once and returns undefined (no promise on every request); with a
 * shared store it returns the promise of the decision.
 */
export type RateLimitCheck = (request: FastifyRequest, clientAddress?: string) => Promise<void> | undefined;

export function createRateLimitHook(
  store: RateLimitStore,
  config: RateLimitConfig,
  clock: Clock,
): RateLimitCheck {
  const policy = bucketPolicy(config);
  const decide = (allowed: boolean, retryAfterMs: number): void => {
    if (!allowed) {
      throw new PassportError('RATE_LIMIT_EXCEEDED', {
        retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
      });
    }
  };
  // Fail open: an unavailable counter store must not take the API down (it is logged and the
  // store's health check reports it).
  const storeFailed = (request: FastifyRequest, err: unknown): void =>
    request.log.warn({ err }, 'rate limit store unavailable; request allowed');

  if (hasSyncTake(store)) {
    return function rateLimit(request: FastifyRequest, clientAddress = request.ip): undefined {
      let result: TakeResult;
      try {
        result = store.takeSync(`public:${clientAddressKey(clientAddress)}`, policy, clock.nowMs());
      } catch (err) {
        storeFailed(request, err);
        return undefined;
      }
      decide(result.allowed, result.retryAfterMs);
      return undefined;
    };
  }
  return async function rateLimit(request: FastifyRequest, clientAddress = request.ip): Promise<void> {
    let allowed = true;
    let retryAfterMs = 0;
    try {
      const result = await store.take(`public:${clientAddressKey(clientAddress)}`, policy, clock.nowMs());
      allowed = result.allowed;
      retryAfterMs = result.retryAfterMs;
    } catch (err) {
      storeFailed(request, err);
    }
    decide(allowed, retryAfterMs);
  };
}

function hasSyncTake(store: RateLimitStore): store is SyncRateLimitStore {
  return typeof (store as Partial<SyncRateLimitStore>).takeSync === 'function';
}
