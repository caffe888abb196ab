/**
 * Redis-only limits the shared contract suites do not reach: Lua's `unpack` takes at most ~8000 values,
 * so the scripts that drop expired entries work in batches. With more than that many expired records
 * (or refilled buckets) a full store must still make room, and a sweep must remove them all. Also what
 * the scripts' cheaper bookkeeping must keep: a sender's quota set never expires before its records,
 * and one store serves policies with different refill rates.
 */
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { DEFAULT_MAX_OPEN_SESSIONS_PER_PASSPORT } from '@passport/core/ports';
import { RedisRateLimitStore, RedisReplayStore, RedisSessionStore } from '@passport/adapters/redis';
// Internal to the adapters (not exported by the package): the literals the stores build into their scripts.
import { luaNumber, luaString } from '../../libs/passport-adapters/src/redis/redis-client.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

let server: RedisServer;
let client: Redis;
beforeAll(async () => {
  server = await startRedisServer();
  client = new Redis(server.url);
});
afterAll(async () => {
  client.disconnect();
  await server.stop();
});

it('a full replay store with 9000 expired records takes a new one, and a sweep removes every expired record', async () => {
  const store = new RedisReplayStore(client, { prefix: 'limits1:', maxEntries: 9000, clockSkewMarginMs: 0 });
  await Promise.all(Array.from({ length: 9000 }, (_, i) => store.recordIfAbsent(`k${i}`, 1000, 2000)));
  await expect(store.recordIfAbsent('new', 3000, 100_000)).resolves.toEqual({ recorded: true });
  await expect(store.sweep(3000)).resolves.toBe(8000);
  await expect(store.size).resolves.toBe(1);
});

it('a sweep of 9000 refilled buckets forgets them all', async () => {
  const store = new RedisRateLimitStore(client, { prefix: 'limits2:' });
  const policy = { capacity: 2, refillPerMs: 1 };
  await Promise.all(Array.from({ length: 9000 }, (_, i) => store.take(`b${i}`, policy, 1000)));
  await expect(store.sweep(5000)).resolves.toBe(9000);
  await expect(store.size).resolves.toBe(0);
});

it("a sender's quota set outlives each of its records (its expiry is pushed out ahead of them, not on every record)", async () => {
  const store = new RedisReplayStore(client, { prefix: 'limits3:', clockSkewMarginMs: 0 });
  const ownerKey = 'limits3:{replay}:o:sender';
  const now = Date.now();
  for (const [key, expiresIn] of [
    ['a', 10_000],
    ['b', 30_000],
    ['c', 20_000],
    ['d', 90_000],
  ] as const) {
    await expect(
      store.recordIfAbsent(key, now, now + expiresIn, { owner: 'sender', maxPerOwner: 10 }),
    ).resolves.toEqual({ recorded: true });
    const [recordTtl, ownerTtl] = await Promise.all([
      client.pttl(`limits3:{replay}:r:${key}`),
      client.pttl(ownerKey),
    ]);
    expect(recordTtl).toBeGreaterThan(0);
    expect(ownerTtl).toBeGreaterThanOrEqual(recordTtl);
  }
  // The quota still counts every live record.
  await expect(
    store.recordIfAbsent('e', now, now + 5000, { owner: 'sender', maxPerOwner: 4 }),
  ).rejects.toMatchObject({
    code: 'REPLAY_QUOTA_EXCEEDED',
  });
});

it('one rate-limit store taking for policies with different refill rates refills each bucket at its own rate', async () => {
  const store = new RedisRateLimitStore(client, { prefix: 'limits4:' });
  // Slow enough that neither bucket expires in Redis (after its time to full, on Redis's clock) while the
  // test runs: a loaded CI machine took over 10 ms between two takes, and the fast bucket (10 ms to full)
  // was gone, so full again.
  const slow = { capacity: 1, refillPerMs: 1 / 1_000_000 };
  const fast = { capacity: 1, refillPerMs: 1 / 10_000 };
  await store.take('slow', slow, 1000);
  await store.take('fast', fast, 1000);
  await expect(store.take('slow', slow, 1000)).resolves.toMatchObject({
    allowed: false,
    retryAfterMs: 1_000_000,
  });
  await expect(store.take('fast', fast, 1000)).resolves.toMatchObject({
    allowed: false,
    retryAfterMs: 10_000,
  });
  await expect(store.take('slow', slow, 11_000)).resolves.toMatchObject({
    allowed: false,
    retryAfterMs: 990_000,
  });
  await expect(store.take('fast', fast, 11_000)).resolves.toMatchObject({ allowed: true });
});

it('stores that differ only in their cap keep their own scripts on one client (each builds its cap into its script)', async () => {
  const small = new RedisReplayStore(client, { prefix: 'limits4:', maxEntries: 1, clockSkewMarginMs: 0 });
  const large = new RedisReplayStore(client, { prefix: 'limits5:', maxEntries: 10, clockSkewMarginMs: 0 });
  const now = Date.now();
  await expect(small.recordIfAbsent('a', now, now + 60_000)).resolves.toEqual({ recorded: true });
  await expect(large.recordIfAbsent('a', now, now + 60_000)).resolves.toEqual({ recorded: true });
  await expect(large.recordIfAbsent('b', now, now + 60_000)).resolves.toEqual({ recorded: true });
  await expect(small.recordIfAbsent('b', now, now + 60_000)).rejects.toMatchObject({
    code: 'REPLAY_STORE_FULL',
  });
  const smallBuckets = new RedisRateLimitStore(client, { prefix: 'limits6:', maxEntries: 1 });
  const largeBuckets = new RedisRateLimitStore(client, {
    prefix: 'limits6:',
    namespace: 'other',
    maxEntries: 10,
  });
  const policy = { capacity: 5, refillPerMs: 0.001 };
  for (const key of ['x', 'y', 'z']) {
    await smallBuckets.take(key, policy, 1000);
    await largeBuckets.take(key, policy, 1000);
  }
  await expect(smallBuckets.size).resolves.toBe(1);
  await expect(largeBuckets.size).resolves.toBe(3);
});

it('a key prefix with quotes, backslashes, newlines and non-ASCII characters is used as it is (it is built into the scripts)', async () => {
  const prefix = 'we"ird\\]]\n\'pré:';
  const replay = new RedisReplayStore(client, { prefix, clockSkewMarginMs: 0 });
  const now = Date.now();
  await expect(
    replay.recordIfAbsent('k', now, now + 60_000, { owner: 'o', maxPerOwner: 5 }),
  ).resolves.toEqual({ recorded: true });
  await expect(
    replay.recordIfAbsent('k', now, now + 60_000, { owner: 'o', maxPerOwner: 5 }),
  ).resolves.toEqual({
    recorded: false,
    firstSeenAtMs: now,
  });
  expect(await client.exists(`${prefix}{replay}:r:k`, `${prefix}{replay}:o:o`, `${prefix}{replay}:exp`)).toBe(
    3,
  );
  const buckets = new RedisRateLimitStore(client, { prefix });
  await expect(buckets.take('b', { capacity: 2, refillPerMs: 0.001 }, 1000)).resolves.toMatchObject({
    allowed: true,
    remaining: 1,
  });
  expect(await client.exists(`${prefix}{rl:default}:b:b`, `${prefix}{rl:default}:lru`)).toBe(2);
});

it('script calls made in one event-loop turn are answered in the order they were made', async () => {
  const store = new RedisRateLimitStore(client, { prefix: 'limits8:' });
  const policy = { capacity: 200, refillPerMs: 0 };
  const results = await Promise.all(Array.from({ length: 200 }, () => store.take('b', policy, 1000)));
  expect(results.map((r) => r.remaining)).toEqual(Array.from({ length: 200 }, (_, i) => 199 - i));
});

it("a store's scripts leave other clients' and ioredis's default options alone (the default list of commands kept out of auto-pipelining is shared)", async () => {
  const other = new Redis(server.url, { lazyConnect: true });
  const fresh = new Redis(server.url, { enableAutoPipelining: true });
  try {
    new RedisReplayStore(fresh, { prefix: 'limits9:' });
    expect(
      fresh.options.autoPipeliningIgnoredCommands?.some((name) => name.startsWith('passportReplayRecord')),
    ).toBe(true);
    expect(other.options.autoPipeliningIgnoredCommands).toEqual([]);
    const later = new Redis(server.url, { lazyConnect: true });
    expect(later.options.autoPipeliningIgnoredCommands).toEqual([]);
    later.disconnect();
    const now = Date.now();
    await expect(
      new RedisReplayStore(fresh, { prefix: 'limits9:' }).recordIfAbsent('k', now, now + 1000),
    ).resolves.toEqual({ recorded: true });
  } finally {
    other.disconnect();
    fresh.disconnect();
  }
});

it('luaString writes any text as a Lua literal that Redis reads back byte for byte (property)', async () => {
  // Key prefixes come from configuration and are built into the scripts' text as such literals.
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' })),
      async (text) => {
        const reply = (await client.callBuffer('EVAL', `return ${luaString(text)}`, '0')) as Buffer;
        expect(reply.equals(Buffer.from(text, 'utf8'))).toBe(true);
      },
    ),
    { numRuns: 300 },
  );
});

it('luaNumber writes caps as Lua numbers (Infinity as math.huge) and refuses NaN', async () => {
  for (const value of [0, 1, 1_000_000, 2 ** 53 - 1, -5, 0.5]) {
    await expect(
      client.eval(`return tostring(${luaNumber(value)} == ${JSON.stringify(String(value))} + 0)`, 0),
    ).resolves.toBe('true');
  }
  await expect(client.eval(`return tostring(${luaNumber(Infinity)} == math.huge)`, 0)).resolves.toBe('true');
  expect(() => luaNumber(Number.NaN)).toThrow(RangeError);
});

// Found by a probe of the fleet: the take refilled by the calling instance's clock. With one instance 2 s
// ahead taking turns with the others, every request refilled the bucket by the lead: 60 of 60 allowed from
// a bucket of 20 refilling 1 per second. Redis's clock caps each instance's.
describe('instances whose clocks differ share one bucket by Redis clock', () => {
  const policy = { capacity: 20, refillPerMs: 1 / 1000 };
  it.each([
    ['2 s ahead', 2000],
    ['2 s behind', -2000],
    // Found by a probe of the fix: beyond the 60 s lag tolerance the lagging caller's time was taken.
    ['70 s behind', -70_000],
  ])(
    'one instance %s, taking turns with a true one: capacity allowed, plus what the test took to run',
    async (_label, skewMs) => {
      const prefix = `skew${skewMs}:`;
      const trueInstance = new RedisRateLimitStore(client, { prefix, namespace: 'public' });
      const otherClient = new Redis(server.url);
      try {
        const skewed = new RedisRateLimitStore(otherClient, { prefix, namespace: 'public' });
        const started = Date.now();
        let allowed = 0;
        for (let i = 0; i < 60; i++) {
          const result =
            i % 2 === 0
              ? await trueInstance.take('198.51.100.7', policy, Date.now())
              : await skewed.take('198.51.100.7', policy, Date.now() + skewMs);
          if (result.allowed) allowed++;
        }
        const elapsedMs = Date.now() - started;
        expect(allowed).toBeGreaterThanOrEqual(policy.capacity);
        expect(allowed).toBeLessThanOrEqual(policy.capacity + Math.ceil(elapsedMs * policy.refillPerMs) + 1);
      } finally {
        otherClient.disconnect();
      }
    },
  );

  // Found by a probe of the fix above: the lagging instance said "Retry-After: 1" eleven times in a row.
  it("a lagging instance's refusal counts the retry on its own clock", async () => {
    const prefix = 'skewretry:';
    const trueInstance = new RedisRateLimitStore(client, { prefix });
    const slow = { capacity: 1, refillPerMs: 1 / 1000 };
    const now = Date.now();
    await expect(trueInstance.take('c', slow, now)).resolves.toMatchObject({ allowed: true });
    const lagging = await trueInstance.take('c', slow, now - 10_000);
    expect(lagging.allowed).toBe(false);
    expect(lagging.retryAfterMs).toBeGreaterThanOrEqual(10_000);
    expect(lagging.retryAfterMs).toBeLessThanOrEqual(11_000);
  });

  it('a sweep by an instance whose clock runs ahead keeps the buckets not yet full by Redis clock', async () => {
    const store = new RedisRateLimitStore(client, { prefix: 'skewsweep:' });
    await store.take('a', { capacity: 5, refillPerMs: 1 / 1000 }, Date.now()); // full again in 1 s
    await expect(store.sweep(Date.now() + 60_000)).resolves.toBe(0);
    await expect(store.size).resolves.toBe(1);
  });
});

it('every Redis store refuses a cap of 0 or NaN when it is built (NaN would leave it unbounded: no count is >= NaN)', () => {
  for (const bad of [0, -1, 1.5, Number.NaN]) {
    expect(() => new RedisReplayStore(client, { prefix: 'caps:', maxEntries: bad })).toThrow(RangeError);
    expect(() => new RedisRateLimitStore(client, { prefix: 'caps:', maxEntries: bad })).toThrow(RangeError);
    expect(() => new RedisSessionStore(client, { prefix: 'caps:', maxEntries: bad })).toThrow(RangeError);
    expect(() => new RedisSessionStore(client, { prefix: 'caps:', maxOpenPerPassport: bad })).toThrow(
      RangeError,
    );
  }
  // The session read cache may be off (0), never unbounded.
  expect(() => new RedisSessionStore(client, { prefix: 'caps:', cacheEntries: Number.NaN })).toThrow(
    RangeError,
  );
  expect(new RedisSessionStore(client, { prefix: 'caps:', cacheEntries: 0 })).toBeInstanceOf(
    RedisSessionStore,
  );
  // The default per-passport bound is the port's, as for every other session store.
  expect(new RedisSessionStore(client, { prefix: 'caps:' }).maxOpenPerPassport).toBe(
    DEFAULT_MAX_OPEN_SESSIONS_PER_PASSPORT,
  );
});
