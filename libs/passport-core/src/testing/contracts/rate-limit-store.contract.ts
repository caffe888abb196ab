/**
 * The RateLimitStore contract, under a FixedClock: burst then refill, exact `retryAfterMs`, refusals
 * that do not consume, the cap, atomicity of concurrent takes, and, for adapters over shared storage,
 * buckets that survive a restart and are shared by instances. The repo runs it against every adapter it
 * ships; an integrator runs it against their own (see contract-test-api.ts).
 */
import { FixedClock } from '../../memory/fixed.clock.js';
import { type BucketPolicy, type RateLimitStore } from '../../ports/rate-limit-store.port.js';
import { type ContractAdapter, type ContractHarness, type ContractTestApi } from './contract-test-api.js';

/** What the suite observes besides the port: the number of buckets held and the store's sweep. */
export interface RateLimitStoreHarness extends ContractHarness<RateLimitStore> {
  size(): number | Promise<number>;
  /** Forgets the buckets that are full again at `nowMs`; returns how many. */
  sweep(nowMs: number): number | Promise<number>;
}

/** Burst 3, one token per second. */
const policy: BucketPolicy = { capacity: 3, refillPerMs: 1 / 1000 };

export function describeRateLimitStoreContract(
  test: ContractTestApi,
  kind: ContractAdapter<RateLimitStore, RateLimitStoreHarness>,
): void {
  const { describe, it, expect, beforeEach, afterEach } = test;

  describe(`RateLimitStore (${kind.name})`, () => {
    let h: RateLimitStoreHarness;
    let clock: FixedClock;
    const take = (key = 'client', p: BucketPolicy = policy, store: RateLimitStore = h.store) =>
      store.take(key, p, clock.nowMs());

    beforeEach(async () => {
      clock = new FixedClock(1_700_000_000_000);
    });
    afterEach(async () => {
      await h?.close();
    });

    describe('token bucket', () => {
      beforeEach(async () => {
        h = await kind.open();
      });

      it('allows the burst, then refuses with the exact wait for one token', async () => {
        await expect(take()).resolves.toEqual({ allowed: true, remaining: 2, retryAfterMs: 0 });
        await expect(take()).resolves.toEqual({ allowed: true, remaining: 1, retryAfterMs: 0 });
        await expect(take()).resolves.toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
        await expect(take()).resolves.toEqual({ allowed: false, remaining: 0, retryAfterMs: 1000 });
        clock.advance(400);
        await expect(take()).resolves.toEqual({ allowed: false, remaining: 0, retryAfterMs: 600 });
        clock.advance(599);
        await expect(take()).resolves.toEqual({ allowed: false, remaining: 0, retryAfterMs: 1 });
        clock.advance(1);
        await expect(take()).resolves.toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
      });

      it('refusals do not consume: waiting retryAfterMs is always enough', async () => {
        for (let i = 0; i < 3; i++) await take();
        for (let i = 0; i < 10; i++) await take(); // hammering while empty changes nothing
        const refused = await take();
        expect(refused.allowed).toBe(false);
        clock.advance(refused.retryAfterMs);
        await expect(take()).resolves.toMatchObject({ allowed: true });
      });

      it('refills to capacity and no further', async () => {
        for (let i = 0; i < 3; i++) await take();
        clock.advance(2500); // 2.5 tokens: two whole ones
        await expect(take()).resolves.toEqual({ allowed: true, remaining: 1, retryAfterMs: 0 });
        clock.advance(3_600_000);
        await expect(take()).resolves.toEqual({ allowed: true, remaining: 2, retryAfterMs: 0 });
      });

      it('fractional refill is kept between takes (no rounding loss)', async () => {
        for (let i = 0; i < 3; i++) await take();
        clock.advance(700);
        await expect(take()).resolves.toEqual({ allowed: false, remaining: 0, retryAfterMs: 300 });
        clock.advance(300);
        await expect(take()).resolves.toMatchObject({ allowed: true });
      });

      // From a mutation probe: dropping the floor at 0 after a take passed on every adapter. 49 ms at
      // 1/49 token per ms is 0.9999999999999999 in floating point: the take is allowed (the float
      // tolerance), and leaves 0, not a level below 0 read as remaining -1.
      it('a take allowed within the float tolerance leaves remaining 0, never -1', async () => {
        const slow: BucketPolicy = { capacity: 1, refillPerMs: 1 / 49 };
        await expect(take('f', slow)).resolves.toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
        await expect(take('f', slow)).resolves.toEqual({ allowed: false, remaining: 0, retryAfterMs: 49 });
        clock.advance(49);
        await expect(take('f', slow)).resolves.toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
        await expect(take('f', slow)).resolves.toEqual({ allowed: false, remaining: 0, retryAfterMs: 49 });
      });

      it('keys are independent, and a policy with no refill never allows again', async () => {
        const never: BucketPolicy = { capacity: 1, refillPerMs: 0 };
        await expect(take('a', never)).resolves.toMatchObject({ allowed: true });
        await expect(take('a', never)).resolves.toEqual({
          allowed: false,
          remaining: 0,
          retryAfterMs: Number.MAX_SAFE_INTEGER,
        });
        await expect(take('b', never)).resolves.toMatchObject({ allowed: true });
      });

      it('of 50 concurrent takes from a bucket of 10 exactly 10 are allowed', async () => {
        const results = await Promise.all(
          Array.from({ length: 50 }, () => take('burst', { capacity: 10, refillPerMs: 0 })),
        );
        expect(results.filter((r) => r.allowed)).toHaveLength(10);
        expect(
          results
            .filter((r) => r.allowed)
            .map((r) => r.remaining)
            .sort((x, y) => x - y),
        ).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      });

      it('sweep forgets exactly the buckets that have refilled completely', async () => {
        await take('full-soon'); // 1 token missing: full after 1 s
        for (let i = 0; i < 3; i++) await take('empty'); // 3 missing: full after 3 s
        clock.advance(1000);
        expect(await h.sweep(clock.nowMs())).toBe(1);
        expect(await h.size()).toBe(1);
        clock.advance(2000);
        expect(await h.sweep(clock.nowMs())).toBe(1);
        expect(await h.size()).toBe(0);
      });
    });

    describe('row cap', () => {
      beforeEach(async () => {
        h = await kind.open({ maxEntries: 2 });
      });

      it('a new key beyond maxEntries drops full buckets first, then the least recently used', async () => {
        for (let i = 0; i < 3; i++) await take('a');
        for (let i = 0; i < 3; i++) await take('b');
        clock.advance(10);
        await take('a'); // a is now the most recently used (refused, but touched)
        clock.advance(10);
        await take('c'); // evicts b
        expect(await h.size()).toBe(2);
        await expect(take('a')).resolves.toMatchObject({ allowed: false });
        await expect(take('b')).resolves.toEqual({ allowed: true, remaining: 2, retryAfterMs: 0 }); // forgotten: full
      });

      // A mutation test: plain LRU passed the test above (both buckets were in use). Dropping a bucket
      // still in use resets a limited client's burst.
      it('drops a full bucket though it was used more recently than a draining one', async () => {
        for (let i = 0; i < 3; i++) await take('a'); // a: empty
        clock.advance(10);
        await take('b'); // b: the most recently used, refilled by 2000 ms
        clock.advance(1990);
        await take('c'); // drops b (full), not a (the least recently used, still draining)
        await expect(take('a')).resolves.toEqual({ allowed: true, remaining: 1, retryAfterMs: 0 });
      });
    });

    describe('a take of several tokens (cost)', () => {
      beforeEach(async () => {
        h = await kind.open();
      });
      const take = (cost: number, store: RateLimitStore = h.store) =>
        store.take('batch', { capacity: 10, refillPerMs: 1 / 1000 }, clock.nowMs(), cost);

      it('takes all of them or none: a refusal takes nothing and says how many there are and when enough are', async () => {
        await expect(take(7)).resolves.toEqual({ allowed: true, remaining: 3, retryAfterMs: 0 });
        await expect(take(5)).resolves.toEqual({ allowed: false, remaining: 3, retryAfterMs: 2000 });
        await expect(take(3)).resolves.toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
        clock.advance(4000);
        await expect(take(4)).resolves.toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
      });

      it('a cost above the capacity is never allowed, and takes nothing', async () => {
        await expect(take(11)).resolves.toMatchObject({
          allowed: false,
          retryAfterMs: Number.MAX_SAFE_INTEGER,
        });
        await expect(take(10)).resolves.toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
      });

      // From a mutation probe: `cost < capacity` for `<=` passed on every adapter. A cost the bucket can
      // hold is a finite wait; only one above its capacity is never.
      it('a cost equal to the capacity, refused, says when the bucket is full again', async () => {
        await expect(take(4)).resolves.toEqual({ allowed: true, remaining: 6, retryAfterMs: 0 });
        await expect(take(10)).resolves.toEqual({ allowed: false, remaining: 6, retryAfterMs: 4000 });
        clock.advance(4000);
        await expect(take(10)).resolves.toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
      });

      // A mutation of the fleet's batches: concurrent takes of several tokens each must not interleave.
      it('of 8 concurrent takes of 3 from a bucket of 10 exactly 3 are allowed', async () => {
        const results = await Promise.all(Array.from({ length: 8 }, () => take(3)));
        expect(results.filter((r) => r.allowed)).toHaveLength(3);
      });
    });

    describe('a clock that reads earlier', () => {
      beforeEach(async () => {
        h = await kind.open();
      });

      // Instances of a fleet disagree on the time by a little: a take stamped earlier than the bucket's
      // last update (a lagging instance) must not refill it.
      it('a take stamped before the last one refills nothing', async () => {
        for (let i = 0; i < 3; i++) await take('a');
        clock.advance(-1000);
        await expect(take('a')).resolves.toMatchObject({ allowed: false });
        clock.advance(1000);
        await expect(take('a')).resolves.toMatchObject({ allowed: false });
      });
    });

    if (kind.sharedStorage) {
      describe('shared storage (a second instance, a restart)', () => {
        beforeEach(async () => {
          h = await kind.open();
        });

        it('an empty bucket stays empty across a restart', async () => {
          for (let i = 0; i < 3; i++) await take();
          const reopened = (await h.restart()) as RateLimitStore;
          clock.advance(250);
          await expect(take('client', policy, reopened)).resolves.toEqual({
            allowed: false,
            remaining: 0,
            retryAfterMs: 750,
          });
        });

        it('two connections drain one bucket together', async () => {
          const peer = (await h.openPeer()) as RateLimitStore;
          const stores = [h.store, peer];
          const results = await Promise.all(
            Array.from({ length: 40 }, (_, i) =>
              take('shared', { capacity: 15, refillPerMs: 0 }, stores[i % 2]),
            ),
          );
          expect(results.filter((r) => r.allowed)).toHaveLength(15);
        });
      });
    }
  });
}
