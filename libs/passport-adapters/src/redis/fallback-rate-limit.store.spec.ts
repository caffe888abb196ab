import { MemoryRateLimitStore } from '@passport/core/testing';
import { type BucketPolicy, type RateLimitStore, type TakeResult } from '@passport/core/ports';
import { FallbackRateLimitStore } from './fallback-rate-limit.store.js';

const policy: BucketPolicy = { capacity: 2, refillPerMs: 0 };

/** A shared store that is down while `down` is true, counting the calls that reached it. */
class Flaky implements RateLimitStore {
  down = false;
  calls = 0;
  private readonly inner = new MemoryRateLimitStore();
  async take(key: string, p: BucketPolicy, nowMs: number): Promise<TakeResult> {
    this.calls++;
    if (this.down) throw new Error('connection refused');
    return this.inner.take(key, p, nowMs);
  }
}

describe('FallbackRateLimitStore', () => {
  it('takes from in-process buckets while the shared store fails, retries it once a second, and returns to it', async () => {
    let clock = 0;
    const shared = new Flaky();
    const store = new FallbackRateLimitStore(shared, new MemoryRateLimitStore(), {
      retryAfterMs: 1000,
      now: () => clock,
    });
    await expect(store.take('k', policy, 0)).resolves.toMatchObject({ allowed: true, remaining: 1 });
    expect(store.fallbackSince).toBeNull();

    shared.down = true;
    // The failing call is answered from the fallback (its own, full bucket): limiting continues.
    await expect(store.take('k', policy, 0)).resolves.toMatchObject({ allowed: true, remaining: 1 });
    await expect(store.take('k', policy, 0)).resolves.toMatchObject({ allowed: true, remaining: 0 });
    await expect(store.take('k', policy, 0)).resolves.toMatchObject({ allowed: false });
    expect(shared.calls).toBe(2); // within the retry window the shared store is not asked again
    expect(store.fallbackSince).toBe(0);

    shared.down = false;
    clock = 1000;
    await expect(store.take('k', policy, 0)).resolves.toMatchObject({ allowed: true, remaining: 0 });
    expect(store.fallbackSince).toBeNull();
    await expect(store.take('k', policy, 0)).resolves.toMatchObject({ allowed: false });
  });

  // Found by a probe: without a probe, the take that retries the store waits for its timeout, and a
  // client sending one request a second met that retry every time (twice the timeout per request).
  it('with a probe, retries the store beside the requests: no take waits for a store that is down', async () => {
    let clock = 0;
    const shared = new Flaky();
    let answer: { resolve: () => void; reject: (e: Error) => void } | undefined;
    let probes = 0;
    const probe = () =>
      new Promise<void>((resolve, reject) => {
        probes++;
        answer = { resolve, reject };
      });
    const store = new FallbackRateLimitStore(shared, new MemoryRateLimitStore(), {
      retryAfterMs: 1000,
      now: () => clock,
      probe,
    });
    shared.down = true;
    await store.take('k', policy, 0); // finds the store down (this one take waited for it)
    expect(shared.calls).toBe(1);

    clock = 1000;
    // The retry is due: answered from the fallback at once, while the probe is still pending.
    await expect(store.take('k', policy, 0)).resolves.toMatchObject({ allowed: true, remaining: 0 });
    await expect(store.take('k', policy, 0)).resolves.toMatchObject({ allowed: false });
    expect(probes).toBe(1); // one probe in flight at a time
    expect(shared.calls).toBe(1);

    answer!.reject(new Error('timeout'));
    await Promise.resolve();
    expect(store.fallbackSince).toBe(1000); // still down: the next retry is a second later
    clock = 1500;
    await store.take('k', policy, 0);
    expect(probes).toBe(1);

    clock = 2000;
    shared.down = false;
    await store.take('k', policy, 0);
    expect(probes).toBe(2);
    answer!.resolve();
    await Promise.resolve();
    expect(store.fallbackSince).toBeNull();
    await expect(store.take('k', policy, 0)).resolves.toMatchObject({ allowed: true, remaining: 1 });
    expect(shared.calls).toBe(2); // back on the shared store
  });
});

// Found by a probe: a Redis out of memory answers PING and refuses every take; health said only that
// rate limits were "until their next take reaches redis again", which read as a recovery.
it('keeps the first line of what the shared store last failed a take with, printable', async () => {
  const failing: RateLimitStore = {
    take: async () => {
      throw new Error('OOM command not allowed when used memory > \u001b[31mmaxmemory.\nsecond line');
    },
  };
  const store = new FallbackRateLimitStore(failing, new MemoryRateLimitStore());
  expect(store.lastFailureMessage).toBeNull();
  await store.take('k', policy, 0);
  expect(store.lastFailureMessage).toBe('OOM command not allowed when used memory > ?[31mmaxmemory.');
});
