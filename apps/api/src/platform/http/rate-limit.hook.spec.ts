/**
 * The public rate-limit check decides at once with an in-process store (no promise per request) and
 * the same way as with a shared store: refused takes throw RATE_LIMIT_EXCEEDED with the retry delay,
 * and a failing store lets the request through (fail open) in both forms.
 */
import { PassportError } from '@passport/core';
import { type RateLimitStore, type TakeResult } from '@passport/core/ports';
import { FixedClock, MemoryRateLimitStore } from '@passport/core/testing';
import { type FastifyRequest } from 'fastify';
import { createRateLimitHook } from './rate-limit.hook.js';

const warnings: unknown[] = [];
const request = {
  ip: '203.0.113.7',
  log: { warn: (obj: unknown) => warnings.push(obj) },
} as unknown as FastifyRequest;
const config = { capacity: 2, refillPerMinute: 60 };

function refusalOf(check: () => unknown): PassportError {
  try {
    check();
  } catch (err) {
    return err as PassportError;
  }
  throw new Error('not refused');
}

describe('createRateLimitHook', () => {
  beforeEach(() => (warnings.length = 0));

  it('with an in-process store, decides without a promise and refuses past the burst', () => {
    const check = createRateLimitHook(new MemoryRateLimitStore(), config, new FixedClock(0));
    expect(check(request)).toBeUndefined();
    expect(check(request)).toBeUndefined();
    const refused = refusalOf(() => check(request));
    expect(refused).toBeInstanceOf(PassportError);
    expect(refused.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(refused.details).toEqual({ retryAfterSeconds: 1 });
  });

  // From a mutation probe: a refill one request per minute too fast passed (no test timed the refill).
  it('60 per minute: a spent bucket gives one request back after exactly 1 s', () => {
    const clock = new FixedClock(0);
    const check = createRateLimitHook(
      new MemoryRateLimitStore(),
      { capacity: 1, refillPerMinute: 60 },
      clock,
    );
    expect(check(request)).toBeUndefined();
    clock.advance(990);
    expect(refusalOf(() => check(request)).code).toBe('RATE_LIMIT_EXCEEDED');
    clock.advance(10);
    expect(check(request)).toBeUndefined();
  });

  // From a mutation probe: Math.floor passed (every refusal above waited a whole second). A client told
  // to come back before a token exists is refused again.
  it('Retry-After is the wait rounded up: 1.5 s to wait is 2, in both forms', async () => {
    const clock = new FixedClock(0);
    const slow = { capacity: 1, refillPerMinute: 20 }; // one request back every 3 s
    const check = createRateLimitHook(new MemoryRateLimitStore(), slow, clock);
    expect(check(request)).toBeUndefined();
    clock.advance(1500);
    expect(refusalOf(() => check(request)).details).toEqual({ retryAfterSeconds: 2 });
    const memory = new MemoryRateLimitStore();
    const shared: RateLimitStore = { take: (key, policy, nowMs) => memory.take(key, policy, nowMs) };
    const checkShared = createRateLimitHook(shared, slow, clock);
    await expect(checkShared(request)).resolves.toBeUndefined();
    clock.advance(1500);
    await expect(checkShared(request)).rejects.toMatchObject({ details: { retryAfterSeconds: 2 } });
  });

  it('with a shared (async) store, answers the same through a promise', async () => {
    const memory = new MemoryRateLimitStore();
    const shared: RateLimitStore = { take: (key, policy, nowMs) => memory.take(key, policy, nowMs) };
    const check = createRateLimitHook(shared, config, new FixedClock(0));
    await expect(check(request)).resolves.toBeUndefined();
    await expect(check(request)).resolves.toBeUndefined();
    await expect(check(request)).rejects.toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
      details: { retryAfterSeconds: 1 },
    });
  });

  it('fails open when the store throws, in both forms, and logs it', async () => {
    const failing = {
      take: (): Promise<TakeResult> => Promise.reject(new Error('down')),
      takeSync: (): TakeResult => {
        throw new Error('down');
      },
    };
    expect(createRateLimitHook(failing, config, new FixedClock(0))(request)).toBeUndefined();
    await expect(
      createRateLimitHook({ take: failing.take }, config, new FixedClock(0))(request),
    ).resolves.toBeUndefined();
    expect(warnings).toHaveLength(2);
  });
});
