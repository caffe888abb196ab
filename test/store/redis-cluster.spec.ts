/**
 * The Redis adapters on a real Redis Cluster (three masters, test/support/redis-cluster.ts) through
 * ioredis's `Cluster` client, as an integrator embedding @passport/adapters would run them. Found by a
 * probe: the session store's close, renew, list, sweep and count scripts and every script of the MCP
 * session directory declared no key, so the Cluster client sent each to any master, and two in three
 * were refused ("Script attempted to access a non local key"); the eviction watch read INFO from any
 * master and recorded while the master holding the records evicted.
 */
import {
  describeRateLimitStoreContract,
  describeReplayStoreContract,
  describeSessionStoreContract,
  sampleSessionRecord,
  type RateLimitStoreHarness,
  type ReplayStoreHarness,
  type SessionStoreHarness,
} from '@passport/core/testing';
import {
  RedisEvictionWatch,
  RedisMcpSessionDirectory,
  RedisRateLimitStore,
  RedisReplayStore,
  RedisSessionStore,
} from '@passport/adapters/redis';
import { type Cluster } from 'ioredis';
import { startRedisCluster } from '../support/redis-cluster.js';
import { redisKind } from './support/redis-kind.js';

const framework = { describe, it, expect, beforeEach, afterEach };

// One cluster for the file, stopped after its last test.
const cluster = await startRedisCluster();
afterAll(() => cluster.stop());
let harnesses = 0;
const onCluster = () => cluster.client();

describe('on a Redis Cluster', () => {
  describeReplayStoreContract(
    framework,
    redisKind<Cluster, RedisReplayStore, ReplayStoreHarness>(
      onCluster,
      (client, prefix, o) =>
        new RedisReplayStore(client, { prefix, maxEntries: o.maxEntries, clockSkewMarginMs: 0 }),
      (store) => ({
        size: () => store.size,
        sweep: (nowMs: number) => store.sweep(nowMs),
        usage: () => store.usage(),
      }),
    ),
  );
  describeSessionStoreContract(
    framework,
    redisKind<Cluster, RedisSessionStore, SessionStoreHarness>(
      onCluster,
      (client, prefix, o) =>
        new RedisSessionStore(client, {
          prefix,
          maxEntries: o.maxEntries,
          maxOpenPerPassport: o.maxOpenPerPassport,
        }),
      (store) => ({ size: () => store.size }),
    ),
  );
  describeRateLimitStoreContract(
    framework,
    redisKind<Cluster, RedisRateLimitStore, RateLimitStoreHarness>(
      onCluster,
      (client, prefix, o) => new RedisRateLimitStore(client, { prefix, maxEntries: o.maxEntries }),
      (store) => ({ size: () => store.size, sweep: (nowMs: number) => store.sweep(nowMs) }),
    ),
  );
});

describe('on a Redis Cluster, beyond the contracts', () => {
  let clients: Cluster[] = [];
  const client = (): Cluster => {
    const made = cluster.client();
    clients.push(made);
    return made;
  };
  afterEach(() => {
    for (const made of clients) made.disconnect();
    clients = [];
  });

  it('every session script reaches the master of {sess}: 30 closes and renewals from a second client all land', async () => {
    const prefix = `s${++harnesses}:`;
    const a = new RedisSessionStore(client(), { prefix, cacheEntries: 0 });
    const b = new RedisSessionStore(client(), { prefix, cacheEntries: 0 });
    const now = Date.now();
    const sessions = Array.from({ length: 30 }, (_, i) =>
      sampleSessionRecord(i, { sessionId: `sess_k${i}_C`, createdAtMs: now, expiresAtMs: now + 60_000 }),
    );
    for (const session of sessions) await a.create(session);
    for (const session of sessions) expect(await b.recordRenewal(session.sessionId, now + 1)).toBe(true);
    for (const session of sessions) expect(await b.close(session.sessionId, 'logout', now + 2)).toBe(true);
    for (const session of sessions)
      expect(await a.get(session.sessionId)).toMatchObject({ closeReason: 'logout', renewalCount: 1 });
    expect((await b.list({ offset: 0, limit: 50 })).total).toBe(30);
    expect(await b.countOpen(now + 3)).toBe(0);
    expect(await b.sweep(now + 3)).toBe(30);
  });

  it('the MCP session directory works fleet-wide on a Cluster client: admit, touch, retry hint, remove', async () => {
    const options = { prefix: `m${++harnesses}:`, maxSessions: 2, maxSessionsPerAddress: 2, ttlMs: 60_000 };
    const a = new RedisMcpSessionDirectory(client(), options);
    const b = new RedisMcpSessionDirectory(client(), options);
    for (let i = 0; i < 20; i++) {
      expect(await a.admit(`id-${i}`, '192.0.2.1')).toBe('admitted');
      expect(await b.touch(`id-${i}`)).toBe(true);
      expect(await b.remove(`id-${i}`)).toBe(true);
      expect(await a.touch(`id-${i}`)).toBe(false);
    }
    expect(await a.admit('x', '192.0.2.1')).toBe('admitted');
    expect(await a.admit('y', '192.0.2.1')).toBe('admitted');
    expect(await b.admit('z', '192.0.2.1')).toBe('instance-full');
    expect(await b.retryAfterMs('instance-full', '192.0.2.1')).toBeGreaterThan(0);
  });

  it('the eviction watch reads every master: any one that may evict is a problem', async () => {
    const watched = client();
    const watch = new RedisEvictionWatch(watched, { intervalMs: 60_000 });
    try {
      // Before the client knows the slots only the seed is a "master": not known to be safe (a review).
      await watch.refresh();
      expect(watch.problem).toBe('maxmemory-policy not read yet');
      if (watched.status !== 'ready') await new Promise((resolve) => watched.once('ready', resolve));
      await watch.refresh();
      expect([watch.maxmemoryPolicy, watch.problem]).toEqual(['noeviction', undefined]);
      // The master holding the replay records, and then each other one alone.
      const replayNode = await cluster.nodeOf('{replay}');
      for (const node of [replayNode, ...cluster.nodes.filter((n) => n !== replayNode)]) {
        const admin = node.connect();
        try {
          await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
          for (let read = 0; read < 5; read++) {
            await watch.refresh();
            expect([node.port, watch.problem]).toEqual([node.port, expect.stringMatching(/allkeys-lru/)]);
          }
        } finally {
          await admin.config('SET', 'maxmemory-policy', 'noeviction');
          admin.disconnect();
        }
      }
      await watch.refresh();
      expect(watch.problem).toBeUndefined();
    } finally {
      watch.stop();
    }
  });

  // From a review: Promise.all failed whole when one master did not answer, and the last policy read
  // (noeviction) stayed while another master evicted.
  it('while one master does not answer, the policy is unknown, even with another master evicting', async () => {
    const watched = client();
    const watch = new RedisEvictionWatch(watched, { intervalMs: 60_000 });
    const [silent, evicting] = cluster.nodes;
    const admin = evicting.connect();
    try {
      if (watched.status !== 'ready') await new Promise((resolve) => watched.once('ready', resolve));
      await watch.refresh();
      expect(watch.problem).toBeUndefined();
      await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
      process.kill(silent.pid!, 'SIGSTOP');
      try {
        await watch.refresh(); // the silent master's INFO times out (the client's 2 s command timeout)
        expect(watch.problem).toMatch(/allkeys-lru|not read yet/);
        await admin.config('SET', 'maxmemory-policy', 'noeviction');
        await watch.refresh();
        expect(watch.problem).toBe('maxmemory-policy not read yet');
      } finally {
        process.kill(silent.pid!, 'SIGCONT');
      }
      await watch.refresh();
      expect(watch.problem).toBeUndefined();
    } finally {
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
      admin.disconnect();
      watch.stop();
    }
  }, 30_000);

  // From a review: a Cluster emits 'close' only when it ends as a whole, so a master's lost connection
  // (a restart with another policy, a failover) left the last policy standing.
  it("one master's connection lost makes the policy unknown until it is read again", async () => {
    const watched = client();
    const watch = new RedisEvictionWatch(watched, { intervalMs: 60_000 });
    const admin = cluster.nodes[2].connect();
    try {
      if (watched.status !== 'ready') await new Promise((resolve) => watched.once('ready', resolve));
      await watch.refresh();
      expect(watch.problem).toBeUndefined();
      // Every normal client of that node but this admin connection (SKIPME): the Cluster's one among them.
      await admin.call('CLIENT', 'KILL', 'TYPE', 'normal');
      const deadline = Date.now() + 5000;
      while (watch.problem === undefined && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      expect(watch.problem).toBe('maxmemory-policy not read yet');
    } finally {
      admin.disconnect();
      watch.stop();
    }
  });
});
