/**
 * Boundaries of the Redis adapters' scripts that the shared contract suites leave open, each pinned by a
 * mutation probe of libs/passport-adapters/src/redis (a mutant of the named line survived every other
 * suite). Real redis-server, real stores.
 */
import { Redis } from 'ioredis';
import {
  FleetSessionEpoch,
  RedisEvictionWatch,
  RedisHistoryWatch,
  RedisMcpSessionDirectory,
  RedisRateLimitStore,
  RedisReplayStore,
  RedisSessionStore,
} from '@passport/adapters/redis';
import { sampleSessionRecord } from '@passport/core/testing';
import { RecordingPausedError } from '@passport/core/ports';
// Internal to the adapters (not exported by the package).
import { defineBatchedScript } from '../../libs/passport-adapters/src/redis/redis-batched-script.js';
import { EVICTION_POLICY_NOT_READ } from '../../libs/passport-adapters/src/redis/eviction-policy.watch.js';
import { RedisMonitor } from '../support/redis-monitor.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

let server: RedisServer;
let client: Redis;
beforeAll(async () => {
  server = await startRedisServer();
  client = new Redis(server.url);
  await new Promise((resolve) => client.once('ready', resolve));
});
const watches: RedisHistoryWatch[] = [];
afterAll(async () => {
  for (const watch of watches) watch.stop();
  client.disconnect();
  await server.stop();
});

describe('RedisReplayStore', () => {
  it("frees a sender's quota at its record's expiresAtMs exactly (a record is live until then, exclusive)", async () => {
    const store = new RedisReplayStore(client, { prefix: 'b-quota-edge:', clockSkewMarginMs: 0 });
    const now = Date.now();
    const quota = { owner: 'sender', maxPerOwner: 1 };
    await expect(store.recordIfAbsent('a', now, now + 60_000, quota)).resolves.toEqual({ recorded: true });
    await expect(store.recordIfAbsent('b', now + 59_999, now + 120_000, quota)).rejects.toMatchObject({
      code: 'REPLAY_QUOTA_EXCEEDED',
    });
    // At `a`'s expiresAtMs it no longer counts against the sender.
    await expect(store.recordIfAbsent('b', now + 60_000, now + 120_000, quota)).resolves.toEqual({
      recorded: true,
    });
  });

  it('a full store records a key again once its record expired, within the clock skew margin (the key takes no more room)', async () => {
    // The expired record is kept for the margin (an instance behind may still need it), so no room can
    // be made; but recording the same key again replaces it in place.
    const store = new RedisReplayStore(client, { prefix: 'b-full-again:', maxEntries: 1 });
    const now = Date.now();
    await expect(store.recordIfAbsent('a', now, now + 50)).resolves.toEqual({ recorded: true });
    await expect(store.recordIfAbsent('b', now + 60, now + 1000)).rejects.toMatchObject({
      code: 'REPLAY_STORE_FULL',
    });
    await expect(store.recordIfAbsent('a', now + 60, now + 1000)).resolves.toEqual({ recorded: true });
    await expect(store.size).resolves.toBe(1);
  });

  it('a full store making room deletes the expired records it drops, not only their index entries', async () => {
    // A record written by an instance whose clock runs behind Redis's (within the margin) is kept in Redis
    // for longer than the margin after its expiry on Redis's clock; once the store drops it to make room,
    // its key must go too (else memory holds records the index no longer counts).
    const store = new RedisReplayStore(client, {
      prefix: 'b-room:',
      maxEntries: 1,
      clockSkewMarginMs: 5000,
    });
    const behind = Date.now() - 3500;
    await expect(store.recordIfAbsent('a', behind, behind + 1)).resolves.toEqual({ recorded: true });
    // Past `a`'s expiry plus the margin on Redis's clock (its key is kept longer: the writer's lag).
    await new Promise((resolve) => setTimeout(resolve, 1800));
    expect(await client.exists('b-room:{replay}:r:a')).toBe(1);
    const now = Date.now();
    await expect(store.recordIfAbsent('b', now, now + 60_000)).resolves.toEqual({ recorded: true });
    expect(await client.exists('b-room:{replay}:r:a')).toBe(0);
    await expect(store.size).resolves.toBe(1);
  });

  it("a sender's quota set is kept a minute past its newest record, so its expiry is pushed out once, not on every record", async () => {
    const store = new RedisReplayStore(client, { prefix: 'b-owner-ttl:', clockSkewMarginMs: 0 });
    const ownerKey = 'b-owner-ttl:{replay}:o:sender';
    const monitor = await RedisMonitor.start(server.url);
    try {
      const now = Date.now();
      // One record an invocation (each awaited), each expiring a second after the one before.
      for (let i = 0; i < 5; i++) {
        await expect(
          store.recordIfAbsent(`k${i}`, now, now + 60_000 + i * 1000, { owner: 'sender', maxPerOwner: 10 }),
        ).resolves.toEqual({ recorded: true });
      }
      await monitor.settle();
      const pushes = monitor.commands.filter(
        (c) => c.args[0].toLowerCase() === 'pexpire' && c.args[1] === ownerKey,
      );
      expect(pushes).toHaveLength(1);
      // Past the newest record by most of the minute's headroom.
      expect(await client.pttl(ownerKey)).toBeGreaterThan(64_000 + 50_000);
    } finally {
      monitor.stop();
    }
  });

  it('a record by an instance that knew the marker, after another instance made a new one, is refused at once as a loss', async () => {
    // Redis restarted empty, then an instance started (it knew no marker: it makes one and sees no loss).
    // An instance that knew the old marker and has recorded nothing yet (so neither counter tells it) must
    // find the change in its very next record, not at its next read of the marker (up to intervalMs later).
    const prefix = 'b-marker:';
    const watch = (): RedisHistoryWatch => {
      const w = new RedisHistoryWatch(client, { prefix, holdMs: 10_000, intervalMs: 600_000 });
      watches.push(w);
      return w;
    };
    const before = watch();
    await before.check();
    const store = new RedisReplayStore(client, { prefix, clockSkewMarginMs: 0, history: before });
    await server.flush();
    const started = watch();
    await started.check();
    expect(started.problem).toBeUndefined();
    const outcome = await store
      .recordIfAbsent('used', Date.now(), Date.now() + 60_000)
      .catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(RecordingPausedError);
    expect(before.problem).toMatch(/^redis lost replay records/);
    expect(await client.exists(`${prefix}{replay}:r:used`)).toBe(0);
  });
});

describe('RedisHistoryWatch', () => {
  it("a check that finds this instance's own generation key gone is a loss, though the shared counter went on", async () => {
    // Redis back from a snapshot taken before this instance's first record; other instances recorded
    // since, pushing the shared counter past what this one was answered. Only its own key tells.
    const prefix = 'b-own-gone:';
    const watch = new RedisHistoryWatch(client, { prefix, holdMs: 10_000, intervalMs: 600_000 });
    watches.push(watch);
    const store = new RedisReplayStore(client, { prefix, clockSkewMarginMs: 0, history: watch });
    await watch.check();
    await expect(store.recordIfAbsent('a', Date.now(), Date.now() + 60_000)).resolves.toEqual({
      recorded: true,
    });
    await client.del(watch.ownGenerationKey);
    await client.incrby(watch.generationKey, 10);
    await watch.check();
    expect(watch.problem).toMatch(/^redis lost replay records/);
  });
  it("a loss's time published again for the same loss never lowers the fleet's lead kept beside it", async () => {
    // Two noticers of one loss whose readings of the fleet's clocks differ: the one that read a lead of
    // 2 s publishes first, the other (no lead read) a moment later. Lines stamped up to the loss plus the
    // larger lead may have been accepted, so that lead must stay. The watch's own script, on a client of
    // its own (ioredis defines it on the client that the watch was given).
    const own = new Redis(server.url);
    const watch = new RedisHistoryWatch(own, { prefix: 'b-lead:', intervalMs: 600_000 });
    watches.push(watch);
    try {
      const name = Object.keys(own).find((key) => key.startsWith('passport-loss-time:'));
      expect(name).toBeDefined();
      const publish = (
        own as unknown as Record<string, (...args: Array<string | number>) => Promise<unknown>>
      )[name!].bind(own);
      const args = (lead: number) => [
        watch.lossTimeKey,
        watch.lossLeadKey,
        90_000_000,
        0,
        'later',
        lead,
        10_000,
      ];
      await publish(...args(2000));
      await publish(...args(0));
      expect(await own.get(watch.lossLeadKey)).toBe('2000');
    } finally {
      own.disconnect();
    }
  });
});

describe('RedisReplayStore before the eviction policy is read', () => {
  const notRead = () => EVICTION_POLICY_NOT_READ;

  it('refuses as a pause (with a Retry-After) on a live connection', async () => {
    const store = new RedisReplayStore(client, { prefix: 'b-not-read:', evictionProblem: notRead });
    const outcome = await store.recordIfAbsent('a', Date.now(), Date.now() + 60_000).catch((e: unknown) => e);
    expect(outcome).toBeInstanceOf(RecordingPausedError);
    expect(store.lastFailureAtMs).toBeNull();
  });

  it('with the connection down, fails as Redis does: no pause promised, and counted as a failure', async () => {
    const down = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      const store = new RedisReplayStore(down, { prefix: 'b-not-read:', evictionProblem: notRead });
      const outcome = await store
        .recordIfAbsent('a', Date.now(), Date.now() + 60_000)
        .catch((e: unknown) => e);
      expect(outcome).toBeInstanceOf(Error);
      expect(outcome).not.toBeInstanceOf(RecordingPausedError);
      expect((outcome as Error).message).toBe(EVICTION_POLICY_NOT_READ);
      expect(store.lastFailureAtMs).not.toBeNull();
    } finally {
      down.disconnect();
    }
  });
});

describe('RedisRateLimitStore', () => {
  it("a take from an instance whose clock runs ahead of Redis's refills nothing for that lead", async () => {
    // Two instances on one bucket: one on time, one a minute ahead. Counting the bucket's time on the
    // leading clock would refill it by the lead on every take (a token every 10 s here: six of them).
    const onTime = new RedisRateLimitStore(client, { prefix: 'b-rate-lead:' });
    const ahead = new RedisRateLimitStore(client, { prefix: 'b-rate-lead:' });
    const policy = { capacity: 1, refillPerMs: 1 / 10_000 };
    const now = Date.now();
    await expect(onTime.take('addr', policy, now)).resolves.toMatchObject({ allowed: true });
    const taken = await ahead.take('addr', policy, now + 60_000);
    expect(taken.allowed).toBe(false);
    expect(taken.retryAfterMs).toBeGreaterThan(9000);
  });
});

describe('RedisSessionStore', () => {
  it('forgetting the sessions before a loss closes every open one, past the first batch of 1000', async () => {
    const store = new RedisSessionStore(client, { prefix: 'b-lost-batches:' });
    const now = Date.now();
    const count = 1200;
    await Promise.all(
      Array.from({ length: count }, (_, n) =>
        store.create(
          sampleSessionRecord(n, { tokenId: `t${n}`, createdAtMs: now, expiresAtMs: now + 3_600_000 }),
        ),
      ),
    );
    await expect(store.countOpen(Date.now())).resolves.toBe(count);
    await expect(store.forgetBeforeLoss()).resolves.toBe(true);
    // Closed (reason `lost`), so that they stop counting against the store's bound and a sweep removes them.
    await expect(store.countOpen(Date.now())).resolves.toBe(0);
    await expect(store.sweep(Date.now())).resolves.toBe(count);
    await expect(store.size).resolves.toBe(0);
  });

  it('a session is kept in Redis for its lifetime and an hour more, then expires by itself (no sweep needed)', async () => {
    const store = new RedisSessionStore(client, { prefix: 'b-session-ttl:' });
    const now = Date.now();
    const session = sampleSessionRecord(1, { createdAtMs: now, expiresAtMs: now + 600_000 });
    await store.create(session);
    const ttl = await client.pttl(`b-session-ttl:{sess}:s:${session.sessionId}`);
    expect(ttl).toBeGreaterThan(600_000 + 3_600_000 - 10_000);
    expect(ttl).toBeLessThanOrEqual(600_000 + 3_600_000);
  });

  it('a session read while the fleet epoch moved is not served from the cache once it has', async () => {
    // The read ran in Redis before a close on another instance; a take (on its own connection) ran after
    // the close and its epoch was handled here before the read's reply. The entry read is older than the
    // epoch in force, so the next request must read Redis, not the cache (5 s of a closed session else).
    const epoch = new FleetSessionEpoch();
    epoch.observe('dataset:1', Date.now());
    const here = new RedisSessionStore(client, { prefix: 'b-cache-race:', epoch });
    const other = new RedisSessionStore(client, { prefix: 'b-cache-race:' });
    const now = Date.now();
    const session = sampleSessionRecord(1, { createdAtMs: now, expiresAtMs: now + 600_000 });
    await here.create(session);
    const read = here.get(session.sessionId);
    epoch.observe('dataset:2', Date.now());
    await expect(read).resolves.toMatchObject({ closedAtMs: null });
    await expect(other.close(session.sessionId, 'logout', Date.now())).resolves.toBe(true);
    await expect(here.get(session.sessionId)).resolves.toMatchObject({ closeReason: 'logout' });
  });
});

describe('defineBatchedScript', () => {
  const definition = {
    prelude: '',
    sharedKeys: ['b-batch:{t}:log'],
    callKeys: ['key'],
    callArgs: ['value'],
    callBody: `redis.call('RPUSH', KEYS[1], value)
return tonumber(value)`,
  };

  it('a single call still in flight is load: a call made meanwhile waits for the interval', async () => {
    const call = defineBatchedScript(client, 'b-batch-inflight', definition, { invocationIntervalMs: 300 });
    await call('b-batch:{t}:k', '0'); // loads the script
    await new Promise((resolve) => setTimeout(resolve, 350)); // a quiet interval
    const sentAt = performance.now();
    const first = call('b-batch:{t}:k', '1');
    // Queued behind the end of the turn that sends the first call: it runs right after the send, before
    // any reply can have been read, so the first invocation is in flight.
    const second = await new Promise<{ reply: Promise<unknown> }>((resolve) =>
      setImmediate(() => resolve({ reply: call('b-batch:{t}:k', '2') })),
    );
    await expect(first).resolves.toBe(1);
    await expect(second.reply).resolves.toBe(2);
    // Timers fire no earlier than asked, to the millisecond.
    expect(performance.now() - sentAt).toBeGreaterThanOrEqual(299);
  });
});

describe('RedisEvictionWatch', () => {
  it('a read of the policy that fails on a live connection (no answer) leaves it not read, not trusted as refused', async () => {
    const own = await startRedisServer();
    const c = new Redis(own.url, { commandTimeout: 300, enableReadyCheck: false, maxRetriesPerRequest: 0 });
    const watch = new RedisEvictionWatch(c, { intervalMs: 600_000 });
    try {
      await new Promise((resolve) => c.once('ready', resolve));
      await watch.refresh();
      expect(watch.problem).toBeUndefined(); // noeviction, read
      // The connection drops and comes back to a Redis that accepts it but does not answer (a stopped
      // process): the policy is forgotten on the drop, and its read on the new connection times out.
      own.pause();
      const closed = new Promise((resolve) => c.once('close', resolve));
      c.disconnect(true);
      await closed;
      await watch.refresh();
      expect(watch.maxmemoryPolicy).toBeNull();
      expect(watch.problem).toBe(EVICTION_POLICY_NOT_READ);
      expect(watch.unknown).toBeUndefined();
    } finally {
      own.resume();
      watch.stop();
      c.disconnect();
      await own.stop();
    }
  });
});

describe('RedisMcpSessionDirectory', () => {
  it("an address over its cap (the cap lowered since) takes its own idle oldest session, the full fleet's least recently used", async () => {
    const options = { prefix: 'b-mcp-over:', maxSessions: 2, ttlMs: 60_000, reclaimIdleMs: 1000 };
    const before = new RedisMcpSessionDirectory(client, { ...options, maxSessionsPerAddress: 2 });
    const t0 = Date.now();
    await expect(before.admit('one', '10.0.0.1', t0)).resolves.toBe('admitted');
    await expect(before.admit('two', '10.0.0.1', t0 + 1)).resolves.toBe('admitted');
    // A deploy lowers the per-address cap to 1: the address holds two. Its idle oldest session gives its
    // slot, as with room in the fleet: the address stays at two (1.15.1; refused before, with a
    // wait of 0 that every retry met alike).
    const after = new RedisMcpSessionDirectory(client, { ...options, maxSessionsPerAddress: 1 });
    await expect(after.admit('three', '10.0.0.1', t0 + 5000)).resolves.toBe('admitted');
    expect(await client.zrange('b-mcp-over:{mcp}:a:10.0.0.1', 0, -1)).toEqual(['two', 'three']);
  });
});
