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
    const store = new FallbackRateLimitStore(shared, new MemoryRateLimitStore(), 1000, () => clock);
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
});
