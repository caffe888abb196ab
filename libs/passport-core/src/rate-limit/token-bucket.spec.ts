import fc from 'fast-check';
import { MemoryRateLimitStore } from '../memory/memory-rate-limit.store.js';
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

  // Found by a probe of the fleet: instances whose clocks differ took turns on one bucket. A take by the
  // clock behind wrote its earlier time, and the next take by the clock ahead counted the gap again: with
  // takes alternating, the bucket refilled by the clocks' difference on every round.
  it('clocks that differ by up to 2 s, taking turns, never allow more than capacity + true elapsed * rate', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.integer({ min: -2000, max: 2000 })), {
          minLength: 1,
          maxLength: 300,
        }),
        (takesOf) => {
          let state: BucketState | undefined;
          let trueNow = 0;
          let allowed = 0;
          for (const [gap, skew] of takesOf) {
            trueNow += gap;
            const step = takeToken(state, policy, trueNow + skew);
            state = step.state;
            if (step.result.allowed) allowed++;
          }
          // The worst a skewed clock can do is to start the bucket's time 2 s early or end it 2 s late.
          return allowed <= policy.capacity + (trueNow + 4000) * policy.refillPerMs + 1e-9;
        },
      ),
    );
    // The probe's pattern: a clock 2 s ahead alternating with a true one, 1 ms apart, 60 takes.
    let state: BucketState | undefined;
    let allowed = 0;
    for (let i = 0; i < 60; i++) {
      const step = takeToken(state, policy, 10_000 + i + (i % 2 ? 2000 : 0));
      state = step.state;
      if (step.result.allowed) allowed++;
    }
    expect(allowed).toBeLessThanOrEqual(policy.capacity + 2);
  });

  // Found by a probe of that fix: an instance 10 s behind said "Retry-After: 1" eleven times in a row (the
  // bucket's time is ahead of its clock), and after a one-hour step back a drained bucket stayed frozen
  // for the hour.
  it("a refusal's retryAfterMs counts on the taker's clock; a step back beyond 60 s takes the new time", () => {
    const drained: BucketState = { tokens: 0, updatedAtMs: 100_000 };
    const behind = takeToken(drained, policy, 95_000); // 5 s behind, within the tolerance
    expect(behind.result).toEqual({ allowed: false, remaining: 0, retryAfterMs: 6000 });
    expect(takeToken(behind.state, policy, 95_000 + 5999).result.allowed).toBe(false);
    expect(takeToken(behind.state, policy, 95_000 + 6000).result.allowed).toBe(true);
    const stepped = takeToken(drained, policy, 100_000 - 3_600_000); // the clock set back an hour
    expect(stepped.result).toEqual({ allowed: false, remaining: 0, retryAfterMs: 1000 });
    expect(takeToken(stepped.state, policy, 100_000 - 3_600_000 + 1000).result.allowed).toBe(true);
  });

  // From a mutation probe: `<` for `<=` at the lag tolerance passed (no take exactly 60 s behind).
  it('a take exactly 60 s behind the bucket is still within the tolerance; 1 ms more is a step back', () => {
    const drained: BucketState = { tokens: 0, updatedAtMs: 160_000 };
    const atEdge = takeToken(drained, policy, 100_000);
    expect(atEdge.result).toEqual({ allowed: false, remaining: 0, retryAfterMs: 61_000 });
    expect(atEdge.state.updatedAtMs).toBe(160_000);
    const beyond = takeToken(drained, policy, 99_999);
    expect(beyond.result).toEqual({ allowed: false, remaining: 0, retryAfterMs: 1000 });
    expect(beyond.state.updatedAtMs).toBe(99_999);
  });

  // From a mutation probe: `cost < capacity` for `<=` passed; the port promises a wait for any cost the
  // bucket can hold, and "never" only above its capacity.
  it('a cost equal to the capacity is a finite wait; one above it is never', () => {
    const partial: BucketState = { tokens: 1, updatedAtMs: 0 };
    expect(takeToken(partial, policy, 0, 3).result).toEqual({
      allowed: false,
      remaining: 1,
      retryAfterMs: 2000,
    });
    expect(takeToken(partial, policy, 2000, 3).result).toEqual({
      allowed: true,
      remaining: 0,
      retryAfterMs: 0,
    });
    expect(takeToken(partial, policy, 0, 4).result.retryAfterMs).toBe(Number.MAX_SAFE_INTEGER);
  });

  // From a mutation probe: dropping the floor at 0 after a take passed. A level short of the cost by
  // float error is allowed (the epsilon); the take must leave 0, not -1e-16 read as remaining -1.
  it('a take allowed within the float tolerance leaves no negative level', () => {
    const perWindow = policyPerWindow(3, 100);
    const level = refillBucket({ tokens: 0.1, updatedAtMs: 0 }, perWindow, 30);
    expect(level).toBeLessThan(1); // 0.1 + 30 * 0.03 in binary floating point
    const step = takeToken({ tokens: 0.1, updatedAtMs: 0 }, perWindow, 30);
    expect(step.result).toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
    expect(step.state.tokens).toBe(0);
    const inPlace: MutableBucketState = { tokens: 0.1, updatedAtMs: 0 };
    expect(takeTokenInPlace(inPlace, perWindow, 30)).toEqual({
      allowed: true,
      remaining: 0,
      retryAfterMs: 0,
    });
    expect(inPlace.tokens).toBe(0);
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

  it('MemoryRateLimitStore with a small cap evicts as the plain LRU map of takeToken states does', () => {
    type BucketPolicyLike = { readonly capacity: number; readonly refillPerMs: number };
    // The reference: the store as first written, a new state object per take, re-inserted each time.
    class ReferenceStore {
      readonly buckets = new Map<string, { state: BucketState; policy: BucketPolicyLike }>();
      lastSweepMs = Number.NEGATIVE_INFINITY;
      evictedActive = 0;
      constructor(
        readonly maxKeys: number,
        readonly sweepIntervalMs: number,
      ) {}
      takeSync(key: string, p: BucketPolicyLike, nowMs: number) {
        const existing = this.buckets.get(key);
        const { state, result } = takeToken(existing?.state, p, nowMs);
        if (existing) this.buckets.delete(key);
        else this.makeRoom(nowMs);
        this.buckets.set(key, { state, policy: p });
        return result;
      }
      sweep(nowMs: number) {
        this.lastSweepMs = nowMs;
        for (const [key, bucket] of this.buckets)
          if (isBucketFull(bucket.state, bucket.policy, nowMs)) this.buckets.delete(key);
      }
      makeRoom(nowMs: number) {
        if (this.buckets.size < this.maxKeys) return;
        if (nowMs - this.lastSweepMs >= this.sweepIntervalMs) this.sweep(nowMs);
        while (this.buckets.size >= this.maxKeys) {
          const [oldestKey, oldest] = this.buckets.entries().next().value!;
          this.buckets.delete(oldestKey);
          if (!isBucketFull(oldest.state, oldest.policy, nowMs)) this.evictedActive++;
        }
      }
    }
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        fc.array(
          fc.record({
            key: fc.constantFrom('a', 'b', 'c'),
            step: fc.oneof(fc.integer({ min: -50, max: 100 }), fc.integer({ min: 600, max: 800 })),
            sweep: fc.boolean(),
            slow: fc.boolean(),
          }),
          { minLength: 1, maxLength: 200 },
        ),
        (maxKeys, schedule) => {
          const store = new MemoryRateLimitStore({ maxKeys, sweepIntervalMs: 700 });
          const reference = new ReferenceStore(maxKeys, 700);
          let now = 10_000;
          for (const { key, step, sweep, slow } of schedule) {
            now += step;
            // A slow refill keeps buckets from filling up, so evictions follow the recency order.
            const p = slow ? { capacity: 3, refillPerMs: 1 / 20_000 } : policy;
            if (sweep && step > 600) {
              store.sweep(now);
              reference.sweep(now);
            }
            expect(store.takeSync(key, p, now)).toEqual(reference.takeSync(key, p, now));
            expect(store.size).toBe(reference.buckets.size);
            expect(store.evictedActive).toBe(reference.evictedActive);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('MemoryRateLimitStore: a key taken again after a new one is the most recent, not the one evicted', () => {
    const store = new MemoryRateLimitStore({ maxKeys: 2 });
    const slow = { capacity: 3, refillPerMs: 1 / 20_000 };
    for (const key of ['x', 'x', 'y', 'x']) store.takeSync(key, slow, 10_000);
    store.takeSync('z', slow, 10_000); // full: evicts y, the least recently used
    expect(store.takeSync('x', slow, 10_000).allowed).toBe(false); // x kept: its three tokens are spent
    expect(store.takeSync('y', slow, 10_000).remaining).toBe(2); // y forgotten: a full bucket again
  });
});
