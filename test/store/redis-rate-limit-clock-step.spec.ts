/**
 * Redis token buckets after a backward clock step. A bucket's time is the caller's clock, capped by
 * Redis's and never before its last update; an instance whose clock was set back an hour (Redis's
 * clock right) found every bucket it had used ahead of it: each take refilled nothing and a refusal's
 * `Retry-After` counted the hour's lag, until its clock passed the buckets' updates again. The
 * in-process rule (the core's `takeToken`: memory, SQLite, the fallback buckets) already takes such a
 * step for the clock being set back. Fleet safety stays what it was: an instance far behind, taking
 * turns with a true one, gets no refill beyond Redis's time.
 */
import { Redis } from 'ioredis';
import { type BucketPolicy } from '@passport/core/ports';
import { MemoryRateLimitStore } from '@passport/core/memory';
import { RedisRateLimitStore, FallbackRateLimitStore } from '@passport/adapters/redis';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { rateLimitAdapters } from './support/store-adapters.js';

const HOUR = 3_600_000;
/** Burst 3, one token per 100 ms. */
const policy: BucketPolicy = { capacity: 3, refillPerMs: 1 / 100 };
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let server: RedisServer;
const clients: Redis[] = [];
let prefixes = 0;
function instance(prefix: string): RedisRateLimitStore {
  const client = new Redis(server.url);
  clients.push(client);
  return new RedisRateLimitStore(client, { prefix, namespace: 'public' });
}

beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  for (const c of clients) c.disconnect();
  await server.stop();
});

describe('an instance alone on its Redis whose clock was set back an hour', () => {
  it("refuses with the bucket's own wait (not the hour), and its bucket refills at once", async () => {
    const store = instance(`step${++prefixes}:`);
    for (let i = 0; i < 3; i++)
      await expect(store.take('c', policy, Date.now())).resolves.toMatchObject({ allowed: true });
    const refused = await store.take('c', policy, Date.now() - HOUR);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(200);
    await sleep(refused.retryAfterMs + 50);
    await expect(store.take('c', policy, Date.now() - HOUR)).resolves.toMatchObject({ allowed: true });
  });

  it('keeps refilling on the set-back clock (burst, refusal, wait, allowed), with no lag in Retry-After', async () => {
    const store = instance(`step${++prefixes}:`);
    await store.take('c', policy, Date.now());
    let allowed = 0;
    let last = { allowed: true, remaining: 0, retryAfterMs: 0 };
    for (let i = 0; i < 5; i++) {
      last = await store.take('c', policy, Date.now() - HOUR);
      if (last.allowed) allowed++;
    }
    expect(allowed).toBeGreaterThanOrEqual(2);
    expect(allowed).toBeLessThanOrEqual(3);
    expect(last.allowed).toBe(false);
    expect(last.retryAfterMs).toBeLessThanOrEqual(200);
    await sleep(350);
    await expect(store.take('c', policy, Date.now() - HOUR)).resolves.toMatchObject({ allowed: true });
  });
});

describe('the script paths a backward step reaches', () => {
  // Takes of one bucket in one invocation read and write it once (the pending write): the anchor must
  // follow the run, or the second take of the run counted the hour again.
  it('concurrent takes of the set-back instance (one invocation) allow what Redis time refilled, no more', async () => {
    const prefix = `paths${++prefixes}:`;
    const [onTime, lagging] = [instance(prefix), instance(prefix)];
    const slow: BucketPolicy = { capacity: 10, refillPerMs: 1 / 100 };
    for (let i = 0; i < 10; i++) await onTime.take('c', slow, Date.now());
    const drainedAt = Date.now();
    await sleep(500);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => lagging.take('c', slow, Date.now() - HOUR)),
    );
    const elapsedMs = Date.now() - drainedAt;
    const allowed = results.filter((r) => r.allowed).length;
    expect(allowed).toBeGreaterThanOrEqual(4);
    expect(allowed).toBeLessThanOrEqual(Math.ceil(elapsedMs * slow.refillPerMs) + 1);
    for (const r of results.filter((r) => !r.allowed)) expect(r.retryAfterMs).toBeLessThanOrEqual(200);
  });

  // A bucket an earlier release wrote has no anchor: the earlier rule (frozen for the lag) until its
  // next move, and nothing fails.
  it('a bucket without the anchor field keeps the earlier rule and gains the field when it moves', async () => {
    const prefix = `paths${++prefixes}:`;
    const client = new Redis(server.url);
    clients.push(client);
    const store = new RedisRateLimitStore(client, { prefix, namespace: 'public' });
    const key = `${prefix}{rl:public}:b:c`;
    const now = Date.now();
    await client.hset(key, 't', '0', 'u', String(now));
    await client.pexpire(key, 10_000);
    const lagged = await store.take('c', policy, Date.now() - HOUR);
    expect(lagged.allowed).toBe(false);
    expect(lagged.retryAfterMs).toBeGreaterThan(HOUR - 1000);
    expect(await client.hget(key, 'o')).toBeNull();
    await sleep(150);
    await expect(store.take('c', policy, Date.now())).resolves.toMatchObject({ allowed: true });
    expect(Number(await client.hget(key, 'o'))).toBeGreaterThanOrEqual(0);
    const refused = await store.take('c', policy, Date.now() - HOUR);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(200);
  });

  // A rolling upgrade (a probe, 1.10.0 beside 1.11.0): a 1.11.0 instance an hour behind made a bucket
  // (o = the hour), a 1.10.0 instance with a true clock moved it (t and u only: o kept, stale), and every
  // take of the lagging instance then refused with Retry-After 3601 while the 1.10.0 one kept refilling it
  // (20 of 20 refused over 10 s), the freeze 1.11.0 says it ended. docs/storage.md ("Schemas by release")
  // promises at most a refill short of what is owed, once.
  it("a bucket a 1.10.0 instance moved after the lagging one made it (a stale o): the lag's refusal says the bucket's wait", async () => {
    const prefix = `paths${++prefixes}:`;
    const client = new Redis(server.url);
    clients.push(client);
    const lagging = new RedisRateLimitStore(client, { prefix, namespace: 'public' });
    const key = `${prefix}{rl:public}:b:c`;
    for (let i = 0; i < 3; i++) await lagging.take('c', policy, Date.now() - HOUR);
    expect(Number(await client.hget(key, 'o'))).toBeGreaterThan(HOUR - 1000);
    // What a 1.10.0 take with a true clock writes: the tokens and its time, nothing of o.
    await client.hset(key, 't', '0', 'u', String(await redisNow(client)));
    const refused = await lagging.take('c', policy, Date.now() - HOUR);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(200);
  });

  // The same stale o (an upgrade probe) for an instance that agrees with Redis: its first take counted
  // only Redis's time since the stale o's move (none: that move is an hour ahead of Redis's clock), so it
  // refilled nothing though the 1.10.0 instance's clock and its own both said 250 ms had passed. A stale o
  // is taken as moved now (written back: its time plus o is Redis's clock, not an hour ahead of it).
  it("a bucket a 1.10.0 instance moved after the lagging one made it (a stale o): a true instance's first take refills by its own time", async () => {
    const prefix = `paths${++prefixes}:`;
    const client = new Redis(server.url);
    clients.push(client);
    const [lagging, onTime] = [
      new RedisRateLimitStore(client, { prefix, namespace: 'public' }),
      new RedisRateLimitStore(client, { prefix, namespace: 'public' }),
    ];
    const key = `${prefix}{rl:public}:b:c`;
    for (let i = 0; i < 3; i++) await lagging.take('c', policy, Date.now() - HOUR);
    await client.hset(key, 't', '0', 'u', String(await redisNow(client)));
    await client.pexpire(key, 300);
    await sleep(250);
    await expect(onTime.take('c', policy, Date.now())).resolves.toMatchObject({ allowed: true });
    const [u, o] = await client.hmget(key, 'u', 'o');
    expect(Number(u) + Number(o)).toBeLessThanOrEqual((await redisNow(client)) + 1000);
  });

  // A stale o is one whose move is more than 60 s ahead of Redis's clock, whatever the lag that made it
  // (5 min here, not only an hour), and the move is taken as made now on Redis's clock: no refill for the
  // time the 1.10.0 instance's own clock (30 s behind Redis's, within the tolerance) put between its
  // bucket time and Redis's (a mutation probe: o taken as 0, or as the bucket's time less Redis's).
  it.each([
    ['a lag of 5 min made it, a true 1.10.0 clock moved it', 5 * 60_000, 0],
    ['a lag of an hour made it, a 1.10.0 clock 30 s behind moved it', HOUR, 30_000],
  ])(
    "a stale o (%s): the lagging instance's next take refills nothing and says the bucket's wait",
    async (_label, lag, moverLag) => {
      const prefix = `paths${++prefixes}:`;
      const client = new Redis(server.url);
      clients.push(client);
      const lagging = new RedisRateLimitStore(client, { prefix, namespace: 'public' });
      const key = `${prefix}{rl:public}:b:c`;
      for (let i = 0; i < 3; i++) await lagging.take('c', policy, Date.now() - lag);
      await client.hset(key, 't', '0', 'u', String((await redisNow(client)) - moverLag));
      const refused = await lagging.take('c', policy, Date.now() - lag);
      expect(refused.allowed).toBe(false);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(200);
    },
  );

  /** Redis's clock (ms), as the scripts read it. */
  async function redisNow(client: Redis): Promise<number> {
    const [seconds, micros] = await client.time();
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  }

  // "Up to 60 s behind a bucket's last update" is another instance's lag: counted from the update, the
  // lag in Retry-After. Only beyond it does Redis's clock move the bucket.
  it("a take exactly 60 s behind the bucket's time is a lag (Retry-After includes it); 1 ms more moves by Redis's clock", async () => {
    const store = instance(`paths${++prefixes}:`);
    const t0 = Date.now() - 5000;
    for (let i = 0; i < 3; i++) await store.take('c', policy, t0);
    const atBound = await store.take('c', policy, t0 - 60_000);
    expect(atBound.allowed).toBe(false);
    expect(atBound.retryAfterMs).toBeGreaterThanOrEqual(60_000);
    const beyond = await store.take('c', policy, t0 - 60_001);
    expect(beyond.allowed).toBe(false);
    expect(beyond.retryAfterMs).toBeLessThanOrEqual(200);
  });

  // The bucket's time never goes back: a bucket whose time is 10 s ahead of Redis's clock (Redis's clock
  // set back since, within the tolerance) keeps it after a take far behind it (an earlier time written
  // would refill the bucket by the difference at the next true take).
  it("a take far behind a bucket whose time is ahead of Redis's clock (within 60 s) never moves the bucket's time back", async () => {
    const prefix = `paths${++prefixes}:`;
    const client = new Redis(server.url);
    clients.push(client);
    const store = new RedisRateLimitStore(client, { prefix, namespace: 'public' });
    const key = `${prefix}{rl:public}:b:c`;
    const ahead = String((await redisNow(client)) + 10_000);
    await client.hset(key, 't', '0', 'u', ahead, 'o', '0');
    await client.pexpire(key, 60_000);
    await expect(store.take('c', policy, Date.now() - HOUR)).resolves.toMatchObject({ allowed: false });
    expect(await client.hget(key, 'u')).toBe(ahead);
  });

  // Redis's clock behind the bucket's anchor (set back since it last moved): no time has passed on it, so
  // the take refills nothing, and takes nothing either.
  it("Redis's clock behind a bucket's anchor refills nothing and drains nothing", async () => {
    const prefix = `paths${++prefixes}:`;
    const client = new Redis(server.url);
    clients.push(client);
    const store = new RedisRateLimitStore(client, { prefix, namespace: 'public' });
    const key = `${prefix}{rl:public}:b:c`;
    const now = await redisNow(client);
    await client.hset(key, 't', '2', 'u', String(now - 2 * HOUR), 'o', String(2 * HOUR + 10_000));
    await client.pexpire(key, 60_000);
    await expect(store.take('c', policy, Date.now())).resolves.toEqual({
      allowed: true,
      remaining: 1,
      retryAfterMs: 0,
    });
  });

  // The field's meaning (Redis's clock less the bucket's time when it last moved) after a run of takes
  // of one bucket in one invocation (the pending write): the last take's anchor, not the first's.
  it("after one invocation's takes of a bucket, its time plus o is Redis's clock", async () => {
    const prefix = `paths${++prefixes}:`;
    const client = new Redis(server.url);
    clients.push(client);
    const store = new RedisRateLimitStore(client, { prefix, namespace: 'public' });
    const key = `${prefix}{rl:public}:b:c`;
    const slow: BucketPolicy = { capacity: 10, refillPerMs: 1 / 100 };
    const base = Date.now() - 10_000;
    await store.take('c', slow, base);
    await Promise.all([store.take('c', slow, base + 2000), store.take('c', slow, base + 5000)]);
    const [u, o] = await client.hmget(key, 'u', 'o');
    expect(Number(u)).toBe(base + 5000);
    expect(Math.abs(Number(u) + Number(o) - (await redisNow(client)))).toBeLessThan(1000);
  });
});

describe('a fleet with one instance an hour behind (Redis and the others right)', () => {
  const bucket: BucketPolicy = { capacity: 20, refillPerMs: 1 / 1000 };
  it.each([
    ['the true instance takes first', 0],
    ['the lagging instance takes first (it makes the bucket)', 1],
  ])('taking turns: capacity allowed, plus what the run took to refill (%s)', async (_label, first) => {
    const prefix = `fleet${++prefixes}:`;
    const stores = [instance(prefix), instance(prefix)];
    const skews = [0, -HOUR];
    const started = Date.now();
    let allowed = 0;
    for (let i = 0; i < 60; i++) {
      const n = (i + first) % 2;
      if ((await stores[n].take('198.51.100.7', bucket, Date.now() + skews[n])).allowed) allowed++;
    }
    const elapsedMs = Date.now() - started;
    expect(allowed).toBeGreaterThanOrEqual(bucket.capacity);
    expect(allowed).toBeLessThanOrEqual(bucket.capacity + Math.ceil(elapsedMs * bucket.refillPerMs) + 1);
  });

  // A bucket the lagging instance made (and drained) carries its hour-early time: the true instance's
  // next take counted the hour as refill (a second burst).
  it('a bucket the lagging instance made and drained is not refilled by the hour for the true one', async () => {
    const prefix = `fleet${++prefixes}:`;
    const [onTime, lagging] = [instance(prefix), instance(prefix)];
    const started = Date.now();
    let allowed = 0;
    for (let i = 0; i < 25; i++) if ((await lagging.take('c', bucket, Date.now() - HOUR)).allowed) allowed++;
    for (let i = 0; i < 25; i++) if ((await onTime.take('c', bucket, Date.now())).allowed) allowed++;
    const elapsedMs = Date.now() - started;
    expect(allowed).toBeGreaterThanOrEqual(bucket.capacity);
    expect(allowed).toBeLessThanOrEqual(bucket.capacity + Math.ceil(elapsedMs * bucket.refillPerMs) + 1);
  });

  // Every instance sweeps every 60 s. A bucket's `full` score is its fullAt on the bucket's time: an hour
  // early for the lagging instance's bucket, so the true instance's sweep (against Redis's clock) dropped
  // it as full at once, and the true instance's next takes found no bucket: a second burst within 60 s,
  // which the take itself (refill by Redis's time since the move) refuses.
  it('a sweep on time does not drop a bucket the lagging instance drained before it has refilled on Redis', async () => {
    const prefix = `fleet${++prefixes}:`;
    const [onTime, lagging] = [instance(prefix), instance(prefix)];
    const slow: BucketPolicy = { capacity: 10, refillPerMs: 1 / 60_000 }; // a minute a token
    for (let i = 0; i < 10; i++) await lagging.take('c', slow, Date.now() - HOUR);
    await expect(onTime.sweep(Date.now())).resolves.toBe(0);
    let allowed = 0;
    for (let i = 0; i < 10; i++) if ((await onTime.take('c', slow, Date.now())).allowed) allowed++;
    expect(allowed).toBeLessThanOrEqual(1);
  });

  // The sweep moves such a bucket's `full` score to its full time plus `o`. A take that keeps the anchor
  // (a second lagging instance within 60 s behind the bucket's time: now = the bucket's time) renews the
  // key's PX from later on Redis's clock, so the key outlives that score; looked at again there, the
  // bucket (key still alive) was moved on by a whole `o` once more: its `lru` and `full` entries outlived
  // the key by `o` (an hour for an hour-behind instance, decades for a host at 1970), counted by the cap.
  it("a bucket the sweep rescheduled and finds still alive is rescheduled to its key's end, not by o again", async () => {
    const prefix = `fleet${++prefixes}:`;
    const [onTime, lagging, further] = [instance(prefix), instance(prefix), instance(prefix)];
    const redis = clients[clients.length - 1];
    const fast: BucketPolicy = { capacity: 3, refillPerMs: 1 / 100 };
    const lag = 61_000;
    for (let i = 0; i < 3; i++) await lagging.take('c', fast, Date.now() - lag);
    await sleep(150);
    await further.take('c', fast, Date.now() - lag - 30_000);
    await onTime.sweep(Date.now());
    const due = Number(await redis.zscore(`${prefix}{rl:public}:full`, 'c'));
    while (Date.now() < due + 20) await sleep(5);
    await onTime.sweep(Date.now());
    await sleep(Math.max(0, await redis.pttl(`${prefix}{rl:public}:b:c`)) + 20);
    await onTime.sweep(Date.now());
    await expect(redis.exists(`${prefix}{rl:public}:b:c`)).resolves.toBe(0);
    await expect(redis.zcard(`${prefix}{rl:public}:lru`)).resolves.toBe(0);
    await expect(redis.zcard(`${prefix}{rl:public}:full`)).resolves.toBe(0);
  });

  // The key's end bounds the rescheduling whatever o says: a 1.10.0 instance moved the lagging one's
  // bucket (t, u, its PX and full score on a true clock; o kept, an hour stale), and the sweep that finds
  // it while its key lives must not put its full score an hour on (a mutation probe: the max of the two).
  it("a bucket with a stale o found by the sweep while its key lives is rescheduled to the key's end, not by the hour", async () => {
    const prefix = `fleet${++prefixes}:`;
    const [onTime, lagging] = [instance(prefix), instance(prefix)];
    const redis = clients[clients.length - 1];
    const key = `${prefix}{rl:public}:b:c`;
    for (let i = 0; i < 3; i++) await lagging.take('c', policy, Date.now() - HOUR);
    const [seconds, micros] = await redis.time();
    const redisMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    await redis.hset(key, 't', '2', 'u', String(redisMs));
    await redis.pexpire(key, 300);
    await redis.zadd(`${prefix}{rl:public}:full`, redisMs, 'c');
    await onTime.sweep(Date.now());
    await sleep(Math.max(0, await redis.pttl(key)) + 50);
    await onTime.sweep(Date.now());
    await expect(redis.zcard(`${prefix}{rl:public}:full`)).resolves.toBe(0);
    await expect(redis.zcard(`${prefix}{rl:public}:lru`)).resolves.toBe(0);
  });

  // Only an o beyond 60 s puts the sweep on Redis's time: a bucket an instance 30 s behind (within the
  // tolerance, judged by its own time) drained is full for a true instance at once (its take counts the
  // 30 s), and that instance's sweep forgets it at once (a mutation probe: any o > 0 rescheduled it).
  it("a bucket an instance 30 s behind drained is forgotten by a true instance's sweep at once (o within 60 s)", async () => {
    const prefix = `fleet${++prefixes}:`;
    const [onTime, behind] = [instance(prefix), instance(prefix)];
    const redis = clients[clients.length - 1];
    for (let i = 0; i < 3; i++) await behind.take('c', policy, Date.now() - 30_000);
    await expect(onTime.sweep(Date.now())).resolves.toBe(1);
    await expect(redis.exists(`${prefix}{rl:public}:b:c`)).resolves.toBe(0);
    await expect(redis.zcard(`${prefix}{rl:public}:full`)).resolves.toBe(0);
  });

  // The sweep goes 1000 buckets a batch and goes on while a batch examined 1000: buckets it rescheduled
  // (the lagging instance's) count as examined, so a full batch of them does not end the sweep before
  // the full buckets behind them (a mutation probe: the loop ended on fewer than 1000 forgotten).
  it('a batch of 1000 rescheduled buckets does not end the sweep before the full ones behind them', async () => {
    const prefix = `fleet${++prefixes}:`;
    const [onTime, lagging, behind] = [instance(prefix), instance(prefix), instance(prefix)];
    const one: BucketPolicy = { capacity: 1, refillPerMs: 1 / 60_000 };
    const lagged = Date.now() - HOUR;
    await Promise.all(Array.from({ length: 1000 }, (_, i) => lagging.take(`l${i}`, one, lagged)));
    await behind.take('c', policy, Date.now() - 30_000);
    await expect(onTime.sweep(Date.now())).resolves.toBe(1);
  });

  // Agreeing with Redis is within 60 s: a true instance whose clock is a second slow is no lagging one.
  it('a bucket the lagging instance made and drained is not refilled by the hour for an instance 1 s slow', async () => {
    const prefix = `fleet${++prefixes}:`;
    const [slow, lagging] = [instance(prefix), instance(prefix)];
    for (let i = 0; i < 3; i++) await lagging.take('c', policy, Date.now() - HOUR);
    await expect(slow.take('c', policy, Date.now() - 1000)).resolves.toMatchObject({ allowed: false });
  });

  // Clocks within 60 s of Redis keep their own time (a test's fake clock 30 s behind, stepping 1 s).
  it("a clock 30 s behind Redis's (within 60 s) refills by its own time", async () => {
    const store = instance(`fleet${++prefixes}:`);
    const t0 = Date.now() - 30_000;
    for (let i = 0; i < 3; i++) await store.take('c', policy, t0);
    await expect(store.take('c', policy, t0 + 1000)).resolves.toMatchObject({ allowed: true, remaining: 2 });
  });

  // A bucket last moved by an instance an hour behind, taken by one two hours behind: Redis's time
  // since that move refills it, not the two instances' difference.
  it('a bucket drained by an instance an hour behind is not refilled for one two hours behind', async () => {
    const prefix = `fleet${++prefixes}:`;
    const [hourBehind, twoHoursBehind] = [instance(prefix), instance(prefix)];
    for (let i = 0; i < 3; i++) await hourBehind.take('c', policy, Date.now() - HOUR);
    const refused = await twoHoursBehind.take('c', policy, Date.now() - 2 * HOUR);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(200);
  });

  it("the lagging instance's refusal of a bucket the true one drained says the bucket's wait, not the hour", async () => {
    const prefix = `fleet${++prefixes}:`;
    const [onTime, lagging] = [instance(prefix), instance(prefix)];
    for (let i = 0; i < 3; i++) await onTime.take('c', policy, Date.now());
    const refused = await lagging.take('c', policy, Date.now() - HOUR);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(200);
    // and the true instance still sees the bucket drained: the lagging take wrote no earlier time
    await expect(onTime.take('c', policy, Date.now())).resolves.toMatchObject({ allowed: false });
  });

  it('a lagging instance cannot freeze the bucket for the true one', async () => {
    const prefix = `fleet${++prefixes}:`;
    const [onTime, lagging] = [instance(prefix), instance(prefix)];
    for (let i = 0; i < 3; i++) await onTime.take('c', policy, Date.now());
    for (let i = 0; i < 5; i++) await lagging.take('c', policy, Date.now() - HOUR);
    await sleep(250);
    await expect(onTime.take('c', policy, Date.now())).resolves.toMatchObject({ allowed: true });
  });
});

describe.each(rateLimitAdapters.map((a) => [a.name, a] as const))(
  'every adapter (%s) on a clock set back an hour after a burst (Redis: its clock right)',
  (_name, kind) => {
    it("refuses with the bucket's own wait and refills on the set-back clock", async () => {
      const h = await kind.open();
      try {
        for (let i = 0; i < 3; i++) await h.store.take('c', policy, Date.now());
        const refused = await h.store.take('c', policy, Date.now() - HOUR);
        expect(refused.allowed).toBe(false);
        expect(refused.retryAfterMs).toBeLessThanOrEqual(200);
        await sleep(refused.retryAfterMs + 50);
        await expect(h.store.take('c', policy, Date.now() - HOUR)).resolves.toMatchObject({ allowed: true });
      } finally {
        await h.close();
      }
    });
  },
);

describe('the in-process fallback buckets after a backward step', () => {
  it("refuse with the bucket's own wait and refill at once (Redis down)", async () => {
    const failing = { take: () => Promise.reject(new Error('connection refused')) };
    const store = new FallbackRateLimitStore(failing as never, new MemoryRateLimitStore());
    const now = Date.now();
    for (let i = 0; i < 3; i++) await store.take('c', policy, now);
    const refused = await store.take('c', policy, now - HOUR);
    expect(refused).toEqual({ allowed: false, remaining: 0, retryAfterMs: 100 });
    await expect(store.take('c', policy, now - HOUR + 100)).resolves.toMatchObject({ allowed: true });
  });
});
