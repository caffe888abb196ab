/**
 * The Redis stores serve every take and every replay record made in one event-loop turn with one script
 * invocation (defineBatchedScript). What that must not change: the calls run in the order they were
 * made, each gets its own reply, a call that fails in Redis fails alone, a failed invocation fails every
 * call of it (never a verdict), and a turn bigger than the invocation cap is served in several.
 */
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { RedisRateLimitStore, RedisReplayStore } from '@passport/adapters/redis';
// Internal to the adapters (not exported by the package).
import { defineBatchedScript } from '../../libs/passport-adapters/src/redis/redis-batched-script.js';
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

/** Script invocations Redis has served so far (EVALSHA and the EVAL ioredis falls back to). */
async function scriptInvocations(): Promise<number> {
  const stats = await client.info('commandstats');
  let calls = 0;
  for (const match of stats.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)) calls += Number(match[1]);
  return calls;
}

it('the takes of one turn are one invocation, served in the order they were made', async () => {
  const store = new RedisRateLimitStore(client, { prefix: 'batch1:' });
  const policy = { capacity: 5, refillPerMs: 0.000001 };
  await store.take('warm-up', policy, 1000); // the script is loaded (EVAL) before counting
  const before = await scriptInvocations();
  const results = await Promise.all(Array.from({ length: 12 }, () => store.take('one', policy, 1000)));
  expect(await scriptInvocations()).toBe(before + 1);
  expect(results.map((r) => r.allowed)).toEqual([...Array(5).fill(true), ...Array(7).fill(false)]);
  expect(results.slice(0, 5).map((r) => r.remaining)).toEqual([4, 3, 2, 1, 0]);
});

it('of concurrent records of one key in one turn exactly the first is recorded; the others see it', async () => {
  const store = new RedisReplayStore(client, { prefix: 'batch2:', clockSkewMarginMs: 0 });
  const outcomes = await Promise.all(
    Array.from({ length: 20 }, (_, i) => store.recordIfAbsent(i % 2 ? 'same' : `k${i}`, 5000, 90_000)),
  );
  expect(outcomes.filter((o, i) => i % 2 === 1 && o.recorded)).toHaveLength(1);
  expect(outcomes[1]).toEqual({ recorded: true });
  for (let i = 3; i < 20; i += 2) expect(outcomes[i]).toEqual({ recorded: false, firstSeenAtMs: 5000 });
  for (let i = 0; i < 20; i += 2) expect(outcomes[i]).toEqual({ recorded: true });
});

it('a call Redis refuses fails alone; the other calls of its invocation are served', async () => {
  const store = new RedisReplayStore(client, { prefix: 'batch3:', clockSkewMarginMs: 0 });
  // A record key holding a hash: GET on it fails with WRONGTYPE inside the script.
  await client.hset('batch3:{replay}:r:broken', 'x', '1');
  const before = await scriptInvocations();
  const settled = await Promise.allSettled([
    store.recordIfAbsent('a', 1000, 90_000),
    store.recordIfAbsent('broken', 1000, 90_000),
    store.recordIfAbsent('b', 1000, 90_000),
  ]);
  expect(await scriptInvocations()).toBeLessThanOrEqual(before + 2); // one, or a first EVAL after NOSCRIPT
  expect(settled[0]).toEqual({ status: 'fulfilled', value: { recorded: true } });
  expect(settled[1].status).toBe('rejected');
  expect(String((settled[1] as PromiseRejectedResult).reason)).toMatch(/WRONGTYPE/);
  expect(settled[2]).toEqual({ status: 'fulfilled', value: { recorded: true } });
  await expect(store.size).resolves.toBe(2);
});

it('a turn beyond the invocation cap is served in several invocations, every call answered once', async () => {
  const call = defineBatchedScript(client, 'batch4', {
    prelude: '',
    sharedKeys: ['batch4:{t}:shared'],
    callKeys: ['key'],
    callArgs: ['value'],
    callBody: `redis.call('RPUSH', KEYS[1], value)
return {tonumber(value), redis.call('LLEN', KEYS[1])}`,
    maxCallsPerInvocation: 10,
  });
  await call('batch4:{t}:k', 0); // loads the script
  const before = await scriptInvocations();
  const replies = (await Promise.all(
    Array.from({ length: 25 }, (_, i) => call('batch4:{t}:k', i + 1)),
  )) as Array<[number, number]>;
  expect(await scriptInvocations()).toBe(before + 3);
  expect(replies.map(([value]) => value)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
  expect(replies.map(([, length]) => length)).toEqual(Array.from({ length: 25 }, (_, i) => i + 2));
  expect(await client.lrange('batch4:{t}:shared', 0, -1)).toEqual(
    Array.from({ length: 26 }, (_, i) => String(i)),
  );
});

it('shared arguments are read when the invocation is sent; its own reply is handed over before any call settles', async () => {
  let tag = 'at-call';
  const seen: string[] = [];
  const definition = {
    prelude: 'local n = 0',
    sharedKeys: [],
    sharedArgs: ['tag'],
    callKeys: ['key'],
    callArgs: ['value'],
    callBody: 'n = n + 1\nreturn {tag, value}',
    invocationReply: 'n',
  };
  const call = defineBatchedScript(client, 'batch11', definition, {
    sharedArgValues: () => [tag],
    onInvocationReply: (calls) => seen.push(`invocation of ${String(calls)}`),
  });
  const replies = Promise.all(
    [1, 2, 3].map((i) =>
      call('batch11:{t}:k', i).then((reply) => {
        seen.push(`call ${i}`);
        return reply;
      }),
    ),
  );
  tag = 'at-send'; // later in the same turn: the invocation leaves at the end of it
  await expect(replies).resolves.toEqual([
    ['at-send', '1'],
    ['at-send', '2'],
    ['at-send', '3'],
  ]);
  expect(seen).toEqual(['invocation of 3', 'call 1', 'call 2', 'call 3']);
  // Shared values that cannot be read fail every call of the invocation (none is left waiting).
  const failing = defineBatchedScript(client, 'batch11', definition, {
    sharedArgValues: () => {
      throw new Error('no value');
    },
  });
  const settled = await Promise.allSettled([failing('batch11:{t}:k', 1), failing('batch11:{t}:k', 2)]);
  expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
  expect(() => defineBatchedScript(client, 'batch11', definition)).toThrow(/sharedArgValues/);
});

it('when the invocation fails (no connection), every call of it fails: no verdict, no take', async () => {
  const offline = new Redis(server.url, { lazyConnect: true, enableOfflineQueue: false });
  const replay = new RedisReplayStore(offline, { prefix: 'batch5:' });
  const rateLimit = new RedisRateLimitStore(offline, { prefix: 'batch5:' });
  const settled = await Promise.allSettled([
    replay.recordIfAbsent('a', 1000, 90_000),
    replay.recordIfAbsent('b', 1000, 90_000),
    rateLimit.take('x', { capacity: 3, refillPerMs: 1 }, 1000),
  ]);
  expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected']);
  await expect(client.exists('batch5:{replay}:r:a', 'batch5:{replay}:r:b')).resolves.toBe(0);
  offline.disconnect();
});

// Found by a probe (on the MCP directory): Redis checks a script for OOM only up to its first write, and
// a record at the store's cap first drops expired records (writes Redis allows when full), after which
// its SET went through past maxmemory. Every record invocation now begins with a write Redis refuses when
// full, so nothing is recorded then.
it('a Redis out of memory refuses every record of the invocation, even one that first makes room', async () => {
  const store = new RedisReplayStore(client, { prefix: 'batch6:', maxEntries: 2, clockSkewMarginMs: 0 });
  await store.recordIfAbsent('old1', 1000, 2000);
  await store.recordIfAbsent('old2', 1000, 2000); // at the cap, both expired by 5000
  await client.config('SET', 'maxmemory-policy', 'noeviction');
  await client.config('SET', 'maxmemory', '1');
  let settled;
  try {
    settled = await Promise.allSettled([
      store.recordIfAbsent('new1', 5000, 90_000),
      store.recordIfAbsent('new2', 5000, 90_000),
    ]);
  } finally {
    await client.config('SET', 'maxmemory', '0');
  }
  expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
  expect(String((settled[0] as PromiseRejectedResult).reason)).toMatch(/OOM/);
  await expect(
    client.exists('batch6:{replay}:r:new1', 'batch6:{replay}:r:new2', 'batch6:{replay}:oom-probe'),
  ).resolves.toBe(0);
  await expect(store.size).resolves.toBe(2);
});

// What one record invocation reads once and then keeps itself (the index's size, the numbers of the
// quota and the cap while the calls send the same text, each owner set's time to live) must answer as a
// read per call would.
describe('what a record invocation keeps between its calls', () => {
  it('counts its own records against the cap: a turn past the cap records up to it and refuses the rest', async () => {
    const store = new RedisReplayStore(client, { prefix: 'batch7:', maxEntries: 3, clockSkewMarginMs: 0 });
    await store.recordIfAbsent('warm-up', 1000, 90_000); // loads the script: the turn below is one invocation
    const before = await scriptInvocations();
    const settled = await Promise.allSettled(
      Array.from({ length: 5 }, (_, i) => store.recordIfAbsent(`k${i}`, 1000, 90_000)),
    );
    expect(await scriptInvocations()).toBe(before + 1);
    expect(settled.map((s) => s.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'rejected',
      'rejected',
    ]);
    expect((settled[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'REPLAY_STORE_FULL' });
    await expect(store.size).resolves.toBe(3);
  });

  it('serves calls with different caps (a subagent line at half) and quotas in one turn, each by its own', async () => {
    const store = new RedisReplayStore(client, { prefix: 'batch8:', maxEntries: 4, clockSkewMarginMs: 0 });
    const owner = (maxPerOwner: number) => ({ owner: `o${maxPerOwner}`, maxPerOwner });
    await store.recordIfAbsent('warm-up', 1000, 90_000, owner(9));
    const settled = await Promise.allSettled([
      store.recordIfAbsent('x1', 1000, 90_000, owner(1), 0.5), // held 1 → 2 (cap 2)
      store.recordIfAbsent('y1', 1000, 90_000, owner(9)), // held 2 → 3 (cap 4)
      store.recordIfAbsent('x2', 1000, 90_000, owner(9), 0.5), // held 3 ≥ cap 2: full
      store.recordIfAbsent('z1', 1000, 90_000, owner(1)), // owner o1 at its quota of 1
      store.recordIfAbsent('y2', 1000, 90_000, owner(9)), // held 3 → 4
      store.recordIfAbsent('y3', 1000, 90_000, owner(9)), // held 4 ≥ cap 4: full
    ]);
    const outcome = (s: PromiseSettledResult<unknown>) =>
      s.status === 'fulfilled' ? 'recorded' : (s.reason as { code?: string }).code;
    expect(settled.map(outcome)).toEqual([
      'recorded',
      'recorded',
      'REPLAY_STORE_FULL',
      'REPLAY_QUOTA_EXCEEDED',
      'recorded',
      'REPLAY_STORE_FULL',
    ]);
  });

  it("an owner set's time to live is pushed out by a later call of the invocation that needs longer", async () => {
    const store = new RedisReplayStore(client, { prefix: 'batch12:', clockSkewMarginMs: 0 });
    const quota = { owner: 'sender', maxPerOwner: 10 };
    await store.recordIfAbsent('warm-up', 1000, 2000, { owner: 'other', maxPerOwner: 1 });
    // One turn: the first record needs the set for 1 s (+ a minute), the second for 599 s.
    await Promise.all([
      store.recordIfAbsent('short', 1000, 2000, quota),
      store.recordIfAbsent('long', 1000, 600_000, quota),
    ]);
    expect(await client.pttl('batch12:{replay}:o:sender')).toBeGreaterThan(590_000);
  });

  it('an owner set emptied at its quota and made again within one invocation still expires', async () => {
    const store = new RedisReplayStore(client, { prefix: 'batch9:', clockSkewMarginMs: 0 });
    const quota = { owner: 'sender', maxPerOwner: 1 };
    const ownerKey = 'batch9:{replay}:o:sender';
    await store.recordIfAbsent('warm-up', 1000, 1500, { owner: 'other', maxPerOwner: 1 });
    // One turn: the first record fills the sender's quota and expires at 1500 (the set's time to live is
    // then 500 ms + a minute); the second, at 5000, finds the quota full, drops the expired member (which
    // deletes the set) and makes the set again, needing 25 s: less than the time the first set had.
    const outcomes = await Promise.all([
      store.recordIfAbsent('first', 1000, 1500, quota),
      store.recordIfAbsent('second', 5000, 30_000, quota),
    ]);
    expect(outcomes).toEqual([{ recorded: true }, { recorded: true }]);
    await expect(client.zrange(ownerKey, 0, -1)).resolves.toEqual(['second']);
    const ttl = await client.pttl(ownerKey);
    expect(ttl).toBeGreaterThan(0); // not -1: a set without expiry would outlive its sender forever
  });
});

describe('what a take invocation keeps between its calls', () => {
  it('serves takes of different policies in one turn, each by its own capacity, refill and cost', async () => {
    const store = new RedisRateLimitStore(client, { prefix: 'batch10:' });
    const one = { capacity: 1, refillPerMs: 0.000001 };
    const three = { capacity: 3, refillPerMs: 0.000002 };
    await store.take('warm-up', one, 1000);
    const before = await scriptInvocations();
    const results = await Promise.all([
      store.take('a', one, 1000),
      store.take('b', three, 1000),
      store.take('a', one, 1000),
      store.take('b', three, 1000, 2),
      store.take('b', three, 1000),
    ]);
    expect(await scriptInvocations()).toBe(before + 1);
    expect(results.map((r) => [r.allowed, r.remaining])).toEqual([
      [true, 0],
      [true, 2],
      [false, 0],
      [true, 0],
      [false, 0],
    ]);
    // Refused: the wait until one token is back at each policy's own refill rate.
    expect(results[2].retryAfterMs).toBe(1_000_000);
    expect(results[4].retryAfterMs).toBe(500_000);
    expect(results[0].retryAfterMs).toBe(0);
  });

  // Takes of one bucket in a row are written once, when another bucket is taken or after the calls: the
  // answers and what is left in Redis must be those of the same takes made one by one.
  it('a turn of takes answers and leaves each bucket as the same takes made one at a time', async () => {
    const policy = { capacity: 4, refillPerMs: 0.0015 };
    const takeArb = fc.record({
      key: fc.constantFrom('a', 'b', 'c'),
      // Fractional clocks too (a Clock an embedder wrote): a review found a fractional time to live
      // refused at the bucket's write, which then failed the whole run of takes of that bucket.
      at: fc.oneof(fc.integer({ min: 1000, max: 9000 }), fc.double({ min: 1000, max: 9000, noNaN: true })),
      cost: fc.integer({ min: 1, max: 3 }),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(takeArb, { minLength: 1, maxLength: 24 }), async (takes) => {
        run++;
        const batched = new RedisRateLimitStore(client, { prefix: `batch13:${run}:` });
        const single = new RedisRateLimitStore(client, { prefix: `batch14:${run}:` });
        const together = await Promise.all(takes.map((t) => batched.take(t.key, policy, t.at, t.cost)));
        const oneByOne = [];
        for (const t of takes) oneByOne.push(await single.take(t.key, policy, t.at, t.cost));
        expect(together).toEqual(oneByOne);
        // What each store left: the same answer to one more take of each bucket, in a turn of its own.
        for (const key of ['a', 'b', 'c']) {
          expect(await batched.take(key, policy, 9500)).toEqual(await single.take(key, policy, 9500));
        }
        expect(await batched.size).toBe(await single.size);
      }),
      { numRuns: 60 },
    );
  });

  it('a new bucket beyond the cap in the same turn sees the deferred takes: the least recently used goes', async () => {
    const store = new RedisRateLimitStore(client, { prefix: 'batch16:', maxEntries: 2 });
    const policy = { capacity: 5, refillPerMs: 0.000001 }; // every bucket below stays short of full
    await store.take('a', policy, 1000);
    await store.take('old', policy, 2000);
    // One turn: 'a' is used at 3000 (its write deferred), then a third bucket goes over the cap of 2.
    await Promise.all([
      store.take('a', policy, 3000),
      store.take('a', policy, 3000),
      store.take('new', policy, 3000),
    ]);
    await expect(client.exists('batch16:{rl:default}:b:old')).resolves.toBe(0);
    await expect(store.take('a', policy, 3000)).resolves.toMatchObject({ allowed: true, remaining: 1 });
  });

  it('a take with a clock that is no number fails alone; the run of takes of its bucket is served', async () => {
    const store = new RedisRateLimitStore(client, { prefix: 'batch17:' });
    const policy = { capacity: 5, refillPerMs: 0.000001 };
    await store.take('busy', policy, 1000);
    const settled = await Promise.allSettled([
      store.take('busy', policy, 1000),
      store.take('busy', policy, Number.NaN),
      store.take('busy', policy, 1000),
    ]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason).toBeInstanceOf(RangeError);
    await expect(store.take('busy', policy, 1000)).resolves.toMatchObject({ allowed: true, remaining: 1 });
  });

  it('a deferred write Redis refuses fails every take it was for, and the bucket keeps what it had', async () => {
    const store = new RedisRateLimitStore(client, { prefix: 'batch15:' });
    const policy = { capacity: 5, refillPerMs: 0.000001 };
    await store.take('busy', policy, 1000); // the bucket exists: its takes below are deferred
    await client.config('SET', 'maxmemory-policy', 'noeviction');
    await client.config('SET', 'maxmemory', '1');
    let settled;
    try {
      settled = await Promise.allSettled([
        store.take('busy', policy, 1000),
        store.take('busy', policy, 1000),
        store.take('busy', policy, 1000),
      ]);
    } finally {
      await client.config('SET', 'maxmemory', '0');
    }
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(String((settled[0] as PromiseRejectedResult).reason)).toMatch(/OOM/);
    // Nothing was taken by the refused turn: 4 tokens left, as after the first take.
    await expect(store.take('busy', policy, 1000)).resolves.toMatchObject({ allowed: true, remaining: 3 });
  });
});

describe('invocations spaced apart under load', () => {
  const definition = {
    prelude: '',
    sharedKeys: ['batch13:{t}:log'],
    callKeys: ['key'],
    callArgs: ['value'],
    callBody: `redis.call('RPUSH', KEYS[1], value)
return tonumber(value)`,
  };
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('calls made within the interval after an invocation wait for its end and leave together', async () => {
    const call = defineBatchedScript(client, 'batch13', definition, { invocationIntervalMs: 300 });
    const sentAt = performance.now();
    // Two callers at once (callers overlap: under load); loads the script; the interval runs from here.
    await Promise.all([call('batch13:{t}:k', 0), call('batch13:{t}:k', 0)]);
    const before = await scriptInvocations();
    const first = call('batch13:{t}:k', 1);
    await nextTurn();
    const second = call('batch13:{t}:k', 2);
    await sleep(20);
    const third = call('batch13:{t}:k', 3);
    await expect(Promise.all([first, second, third])).resolves.toEqual([1, 2, 3]);
    // Timers fire no earlier than asked, to the millisecond.
    expect(performance.now() - sentAt).toBeGreaterThanOrEqual(299);
    expect(await scriptInvocations()).toBe(before + 1);
    expect(await client.lrange('batch13:{t}:log', 0, -1)).toEqual(['0', '0', '1', '2', '3']);
  });

  // A probe: one caller awaiting each call before the next waited the interval on every call (1.2 ms a
  // call against 0.1), with nothing to batch.
  it('a caller alone, awaiting each call, never waits: nothing would join its calls', async () => {
    const call = defineBatchedScript(client, 'batch17', definition, { invocationIntervalMs: 300 });
    await call('batch17:{t}:k', 0); // loads the script
    const before = await scriptInvocations();
    const startedAt = performance.now();
    for (let i = 1; i <= 3; i++) await expect(call('batch17:{t}:k', i)).resolves.toBe(i);
    // Three waits would take 900 ms.
    expect(performance.now() - startedAt).toBeLessThan(300);
    expect(await scriptInvocations()).toBe(before + 3);
  });

  it('a call made after a quiet interval leaves at the end of its own turn', async () => {
    const call = defineBatchedScript(client, 'batch14', definition, { invocationIntervalMs: 100 });
    await call('batch14:{t}:k', 0);
    await sleep(150);
    const before = await scriptInvocations();
    // Were the first held back like a call within the interval, the second (made 50 ms later, still
    // within the interval the first began) would join it.
    const first = call('batch14:{t}:k', 1);
    await sleep(50);
    const second = call('batch14:{t}:k', 2);
    await expect(Promise.all([first, second])).resolves.toEqual([1, 2]);
    expect(await scriptInvocations()).toBe(before + 2);
  });

  it('a full batch leaves at once, within the interval too', async () => {
    const call = defineBatchedScript(
      client,
      'batch15',
      { ...definition, maxCallsPerInvocation: 4 },
      { invocationIntervalMs: 60_000 },
    );
    await call('batch15:{t}:k', 0);
    // A minute's interval: only being full can send these four.
    await expect(Promise.all([1, 2, 3, 4].map((i) => call('batch15:{t}:k', i)))).resolves.toEqual([
      1, 2, 3, 4,
    ]);
  });

  it('the Redis stores take it as an option, off by default', async () => {
    const policy = { capacity: 100, refillPerMs: 0.001 };
    const spaced = new RedisRateLimitStore(client, { prefix: 'batch19:', invocationIntervalMs: 300 });
    const plain = new RedisRateLimitStore(client, { prefix: 'batch20:' });
    for (const store of [spaced, plain]) {
      // Two takes at once (callers overlap), then one more right after their answer.
      await Promise.all([store.take('a', policy, 1000), store.take('b', policy, 1000)]);
      const answeredAt = performance.now();
      await store.take('c', policy, 1000);
      const waited = performance.now() - answeredAt;
      if (store === spaced) expect(waited).toBeGreaterThanOrEqual(250);
      else expect(waited).toBeLessThan(250);
    }
    const records = new RedisReplayStore(client, { prefix: 'batch21:', invocationIntervalMs: 300 });
    // Times of now: a caller further behind Redis than the clock skew margin is refused.
    const now = Date.now();
    await Promise.all([
      records.recordIfAbsent('a', now, now + 90_000),
      records.recordIfAbsent('b', now, now + 90_000),
    ]);
    const answeredAt = performance.now();
    await records.recordIfAbsent('c', now, now + 90_000);
    expect(performance.now() - answeredAt).toBeGreaterThanOrEqual(250);
  });

  it('refuses an interval that is not a non-negative number', () => {
    for (const invocationIntervalMs of [-1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => defineBatchedScript(client, 'batch16', definition, { invocationIntervalMs })).toThrow(
        /invocationIntervalMs/,
      );
  });
});
