/**
 * Per-passport rate limit on JWT routes (docs/protocol.md §7): the passport's `max_requests` per
 * `maxrq_window` seconds as a token bucket keyed by token id (burst = max_requests, refilled evenly
 * over the window). Unset or 0 means unlimited; a value that is no whole number of requests ("-1",
 * "1.5", "many") fails closed as a limit of 1, not as "unlimited". A window
 * that is no whole number of seconds is the default 60 s. The figures come from the JWT claims, which
 * the login copied from the passport metadata. A store that cannot count is 503 SERVICE_UNAVAILABLE.
 */
import { Inject, Injectable } from '@nestjs/common';
import { PassportError, type Clock } from '@passport/core';
import { positiveIntegerClaim } from '@passport/core/login';
import { type RateLimitStore } from '@passport/core/ports';
import { CLOCK, RATE_LIMIT_STORE } from '../platform/infrastructure/di-tokens.js';
import { type AuthContext } from './auth-context.js';

@Injectable()
export class PassportRateLimiter {
  constructor(
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Resolves when the request is within the passport's quota; undefined (nothing to wait for) when it has none. */
  check(auth: AuthContext): Promise<void> | undefined {
    // The metadata's strings (production's claim form), or numbers in tokens minted before that.
    const raw = auth.claims.passport_maxrequests;
    if (
      raw === null ||
      raw === undefined ||
      raw === '' ||
      raw === 0 ||
      (typeof raw === 'string' && /^\s*0+\s*$/.test(raw))
    )
      return undefined;
    return this.take(auth, positiveIntegerClaim(raw) ?? 1);
  }

  private async take(auth: AuthContext, limit: number): Promise<void> {
    const window = positiveIntegerClaim(auth.claims.passport_maxrqwindow) ?? 60;
    let result;
    try {
      result = await this.store.take(
        `passport|${auth.tokenId}`,
        { capacity: limit, refillPerMs: limit / (window * 1000) },
        this.clock.nowMs(),
      );
    } catch (error) {
      // A quota that cannot be counted is neither a free pass nor a 500 (a database file deleted under
      // the server answered 500 here): 503, the client retries.
      if (error instanceof PassportError) throw error;
      throw new PassportError('SERVICE_UNAVAILABLE', { reason: 'rate_limit_store_unavailable' }, undefined, {
        cause: error,
      });
    }
    if (!result.allowed) {
      const retryAfterSeconds = Math.max(1, Math.ceil(result.retryAfterMs / 1000));
      // The error filter turns details.retryAfterSeconds into the Retry-After header.
      throw new PassportError('RATE_LIMIT_EXCEEDED', {
        limit,
        windowSeconds: window,
        scope: 'passport',
        retryAfterSeconds,
      });
    }
  }
}
