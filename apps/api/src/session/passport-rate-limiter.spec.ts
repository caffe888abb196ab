/**
 * The passport's quota on its own, on the memory bucket store and a fixed clock (a mutation probe: a
 * refill one request too fast and a Retry-After rounded down passed every test, which used quotas far
 * from their edges).
 */
import { PassportError } from '@passport/core';
import { FixedClock, MemoryRateLimitStore } from '@passport/core/testing';
import { type AuthContext } from './auth-context.js';
import { PassportRateLimiter } from './passport-rate-limiter.js';

const auth = (maxRequests: string, window: string): AuthContext =>
  ({
    tokenId: 'abcdefghijkl',
    claims: { passport_maxrequests: maxRequests, passport_maxrqwindow: window },
  }) as unknown as AuthContext;

async function outcome(limiter: PassportRateLimiter, caller: AuthContext): Promise<string> {
  try {
    await limiter.check(caller);
    return 'allowed';
  } catch (error) {
    if (!(error instanceof PassportError)) throw error;
    return `${error.code} retry ${(error.details as { retryAfterSeconds: number }).retryAfterSeconds}`;
  }
}

describe('PassportRateLimiter', () => {
  it('2 per 60 s: both spent, one more comes back only after 30 s', async () => {
    const clock = new FixedClock(1_000_000);
    const limiter = new PassportRateLimiter(new MemoryRateLimitStore(), clock);
    const caller = auth('2', '60');
    expect([await outcome(limiter, caller), await outcome(limiter, caller)]).toEqual(['allowed', 'allowed']);
    expect(await outcome(limiter, caller)).toBe('RATE_LIMIT_EXCEEDED retry 30');
    clock.advance(20_000);
    expect(await outcome(limiter, caller)).toBe('RATE_LIMIT_EXCEEDED retry 10');
    clock.advance(10_000);
    expect(await outcome(limiter, caller)).toBe('allowed');
    expect(await outcome(limiter, caller)).toBe('RATE_LIMIT_EXCEEDED retry 30');
  });

  it('Retry-After is rounded up: 59.5 s to wait is 60', async () => {
    const clock = new FixedClock(1_000_000);
    const limiter = new PassportRateLimiter(new MemoryRateLimitStore(), clock);
    const caller = auth('1', '60');
    expect(await outcome(limiter, caller)).toBe('allowed');
    clock.advance(500);
    expect(await outcome(limiter, caller)).toBe('RATE_LIMIT_EXCEEDED retry 60');
  });

  // From a mutation probe: Math.round passed the test above (59.5 rounds to 60 either way).
  it('Retry-After is rounded up below the half too: 59.4 s to wait is 60', async () => {
    const clock = new FixedClock(1_000_000);
    const limiter = new PassportRateLimiter(new MemoryRateLimitStore(), clock);
    const caller = auth('1', '60');
    expect(await outcome(limiter, caller)).toBe('allowed');
    clock.advance(600);
    expect(await outcome(limiter, caller)).toBe('RATE_LIMIT_EXCEEDED retry 60');
  });

  // From a mutation probe: a bucket keyed by the session passed every test (each used one session). The
  // quota is the passport's: logging in again gives no fresh one.
  it("the passport's sessions share its one quota", async () => {
    const clock = new FixedClock(1_000_000);
    const limiter = new PassportRateLimiter(new MemoryRateLimitStore(), clock);
    const session = (sessionId: string): AuthContext =>
      ({ ...auth('2', '60'), sessionId }) as unknown as AuthContext;
    expect(await outcome(limiter, session('sess_a'))).toBe('allowed');
    expect(await outcome(limiter, session('sess_b'))).toBe('allowed');
    expect(await outcome(limiter, session('sess_c'))).toBe('RATE_LIMIT_EXCEEDED retry 30');
    const other = { ...auth('2', '60'), tokenId: 'bhahbkbramax', sessionId: 'sess_d' } as AuthContext;
    expect(await outcome(limiter, other)).toBe('allowed');
  });

  // A mutation probe: a store failure let through (no quota counted) passed every test.
  it('a store that cannot count is 503 rate_limit_store_unavailable, never a free pass', async () => {
    const failing = {
      take: () => Promise.reject(new Error('SQLITE_IOERR: disk I/O error')),
    } as unknown as MemoryRateLimitStore;
    const limiter = new PassportRateLimiter(failing, new FixedClock(1_000_000));
    await expect(limiter.check(auth('2', '60'))).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      details: { reason: 'rate_limit_store_unavailable' },
    });
  });
});
