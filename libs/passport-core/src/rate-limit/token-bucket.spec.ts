import fc from 'fast-check';
import { MemoryRateLimitStore } from '../adapters/memory/memory-rate-limit.store.js';
import {
  isBucketFull,
  policyPerWindow,
  refillBucket,
  takeToken,
  takeTokenInPlace,
  type BucketState,
  type MutableBucketState,
} from './token-bucket.js';

const policy = { capacity: 3, refillPerMs: 1 / 1000 }; // 3 burst, 1 token per second

describe('token bucket arithmetic', () => {
  it('refuses the take after the burst and says when one token is back', () => {
    let state: BucketState | undefined;
    const results = [];
    for (let i = 0; i < 4; i++) {
      const step = takeToken(state, policy, 10_000);
      state = step.state;
      results.push(step.result);
    }
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
    expect(results.map((r) => r.remaining)).toEqual([2, 1, 0, 0]);
    expect(results[3].retryAfterMs).toBe(1000);
    expect(takeToken(state, policy, 10_999).result.allowed).toBe(false);
    expect(takeToken(state, policy, 10_999).result.retryAfterMs).toBe(1);
    expect(takeToken(state, policy, 11_000).result.allowed).toBe(true);
  });

  it('never refills above capacity and ignores a clock stepping backwards', () => {
    expect(refillBucket({ tokens: 0, updatedAtMs: 0 }, policy, 1e9)).toBe(3);
    expect(refillBucket({ tokens: 1, updatedAtMs: 5000 }, policy, 1000)).toBe(1);
  });

  it('with a refill of 0 a refused take never becomes available', () => {
    const step = takeToken({ tokens: 0, updatedAtMs: 0 }, { capacity: 1, refillPerMs: 0 }, 5);
    expect(step.result).toEqual({ allowed: false, remaining: 0, retryAfterMs: Number.MAX_SAFE_INTEGER });
  });

  it('reports a bucket full only once refilled completely', () => {
    expect(isBucketFull({ tokens: 2, updatedAtMs: 0 }, policy, 999)).toBe(false);
    expect(isBucketFull({ tokens: 2, updatedAtMs: 0 }, policy, 1000)).toBe(true);
  });

  it('policyPerWindow gives count per window with a burst of count', () => {
    expect(policyPerWindow(100, 3_600_000)).toEqual({ capacity: 100, refillPerMs: 100 / 3_600_000 });
  });

  it('over any schedule, allowed takes never exceed capacity + elapsed * rate', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5000 }), { minLength: 1, maxLength: 200 }), (gaps) => {
        let state: BucketState | undefined;
        let now = 0;
        let allowed = 0;
        for (const gap of gaps) {
          now += gap;
          const step = takeToken(state, policy, now);
          state = step.state;
          if (step.result.allowed) allowed++;
          expect(step.result.remaining).toBeGreaterThanOrEqual(0);
        }
        return allowed <= policy.capacity + now * policy.refillPerMs + 1e-9;
      }),
    );
  });

  // The memory store updates its buckets in place; it must answer exactly as the pure rule does.
  const takes = fc.array(
    fc.record({
      key: fc.constantFrom('a', 'b', 'c'),
      // Negative steps: a clock stepping backwards.
      step: fc.integer({ min: -2000, max: 5000 }),
      policy: fc.constantFrom(policy, { capacity: 1, refillPerMs: 0 }, { capacity: 5, refillPerMs: 0.37 }),
    }),
    { minLength: 1, maxLength: 150 },
  );

  it('takeTokenInPlace leaves the state takeToken returns and answers the same', () => {
    fc.assert(
      fc.property(takes, (schedule) => {
        let pure: BucketState | undefined;
        let inPlace: MutableBucketState | undefined;
        let now = 10_000;
        for (const { step, policy: p } of schedule) {
          now += step;
          const expected = takeToken(pure, p, now);
          pure = expected.state;
          let result;
          if (inPlace === undefined) {
            const first = takeToken(undefined, p, now);
            inPlace = { ...first.state };
            result = first.result;
          } else {
            result = takeTokenInPlace(inPlace, p, now);
          }
          expect(result).toEqual(expected.result);
          expect(inPlace).toEqual(expected.state);
        }
      }),
    );
  });

  it('MemoryRateLimitStore.takeSync answers as takeToken folded per key, and earlier results stay unchanged', () => {
    fc.assert(
      fc.property(takes, (schedule) => {
        const store = new MemoryRateLimitStore();
        const reference = new Map<string, BucketState>();
        const answered: Array<{ result: object; copy: object }> = [];
        let now = 10_000;
        for (const { key, step, policy: p } of schedule) {
          now += step;
          const expected = takeToken(reference.get(key), p, now);
          reference.set(key, expected.state);
          const result = store.takeSync(key, p, now);
          expect(result).toEqual(expected.result);
          answered.push({ result, copy: { ...result } });
        }
        for (const { result, copy } of answered) expect(result).toEqual(copy);
      }),
    );
  });
});
