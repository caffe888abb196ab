/**
 * The Redis session read cache, on a real redis-server. Each "instance" here is what the app wires per
 * process: a session store and the public rate-limit store sharing one FleetSessionEpoch, each request
 * a take (the public rate limit, which also reads the epoch) and then the session read. A change to
 * any session anywhere moves the epoch in the same script, so the next request on every instance reads
 * Redis again.
 */
import { Redis } from 'ioredis';
import { sampleSessionRecord } from '@passport/core/testing';
import { type SessionRecord } from '@passport/core/ports';
import { FleetSessionEpoch, RedisRateLimitStore, RedisSessionStore } from '@passport/adapters/redis';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

let server: RedisServer;
const clients: Redis[] = [];
let prefixes = 0;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const policy = { capacity: 1_000_000, refillPerMs: 1000 };

beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  for (const c of clients) c.disconnect();
  await server.stop();
});

function fleet(cache: { cacheEntries?: number; cacheMaxAgeMs?: number } = {}) {
  const prefix = `cache${++prefixes}:`;
  const instance = () => {
    const client = new Redis(server.url, { maxRetriesPerRequest: 0 });
    const takeClient = new Redis(server.url, { maxRetriesPerRequest: 0 });
    clients.push(client, takeClient);
    const epoch = new FleetSessionEpoch();
    const sessions = new RedisSessionStore(client, { prefix, epoch, ...cache });
    const publicLimit = new RedisRateLimitStore(takeClient, {
      prefix,
      namespace: 'public',
      sessionEpoch: epoch,
    });
    /** One request: the public rate limit (reading the epoch), then the session. */
    const request = async (id: string): Promise<SessionRecord | null> => {
      await publicLimit.take('public:127.0.0.1', policy, Date.now());
      return sessions.get(id);
    };
    return { sessions, request, epoch, takeClient };
  };
  return { a: instance(), b: instance(), hash: (id: string) => `${prefix}{sess}:s:${id}` };
}

const now = Date.now();
const session = (n: number, lifetimeMs = 3_600_000): SessionRecord =>
  sampleSessionRecord(n, { createdAtMs: Date.now(), expiresAtMs: Date.now() + lifetimeMs });

it('answers from memory while the epoch is unchanged (a hash removed behind its back is still served)', async () => {
  const { a, hash } = fleet();
  const s = session(1);
  await a.sessions.create(s);
  await expect(a.request(s.sessionId)).resolves.toMatchObject({ jti: 'jti-1' });
  const redis = new Redis(server.url);
  await redis.del(hash(s.sessionId));
  redis.disconnect();
  await expect(a.request(s.sessionId)).resolves.toMatchObject({ jti: 'jti-1', closedAtMs: null });
});

it('a close on B is seen by the next request on A, which had the session cached', async () => {
  const { a, b } = fleet();
  const s = session(2);
  await a.sessions.create(s);
  await expect(a.request(s.sessionId)).resolves.toMatchObject({ closedAtMs: null });
  await expect(a.request(s.sessionId)).resolves.toMatchObject({ closedAtMs: null });
  await expect(b.sessions.close(s.sessionId, 'logout', now)).resolves.toBe(true);
  await expect(a.request(s.sessionId)).resolves.toMatchObject({ closedAtMs: now, closeReason: 'logout' });
});

it('a renewal on B is seen by the next request on A', async () => {
  const { a, b } = fleet();
  const s = session(3);
  await a.sessions.create(s);
  await a.request(s.sessionId);
  await expect(b.sessions.recordRenewal(s.sessionId, Date.now())).resolves.toBe(true);
  await expect(a.request(s.sessionId)).resolves.toMatchObject({ renewalCount: 1 });
});

it("a login beyond the passport's bound on B (closing its oldest session) is seen by the next request on A", async () => {
  const prefix = `cache${++prefixes}:`;
  const epoch = new FleetSessionEpoch();
  const client = new Redis(server.url);
  clients.push(client);
  const a = new RedisSessionStore(client, { prefix, epoch, maxOpenPerPassport: 1 });
  const b = new RedisSessionStore(client, { prefix, maxOpenPerPassport: 1 });
  const take = new RedisRateLimitStore(client, { prefix, namespace: 'public', sessionEpoch: epoch });
  const first = session(4);
  await a.create(first);
  await take.take('k', policy, Date.now());
  await expect(a.get(first.sessionId)).resolves.toMatchObject({ closedAtMs: null });
  await b.create(session(5));
  await take.take('k', policy, Date.now());
  await expect(a.get(first.sessionId)).resolves.toMatchObject({ closeReason: 'superseded' });
});

it('a failed take leaves the epoch unknown: the next session read goes to Redis', async () => {
  const { a, b } = fleet();
  const s = session(6);
  await a.sessions.create(s);
  await a.request(s.sessionId);
  // B closes; A's take fails, so A does not learn the new epoch, and must not trust its cache.
  await b.sessions.close(s.sessionId, 'logout', now);
  a.takeClient.disconnect();
  await expect(a.request(s.sessionId)).rejects.toThrow();
  expect(a.epoch.current()).toBeNull();
  await expect(a.sessions.get(s.sessionId)).resolves.toMatchObject({ closeReason: 'logout' });
});

it("a cached session past its end on Redis's clock is reported ended", async () => {
  const { a } = fleet();
  // Long enough that a loaded machine still reads it live once; the sleep then passes its end.
  const s = session(7, 1500);
  await a.sessions.create(s);
  await expect(a.request(s.sessionId)).resolves.toMatchObject({ closedAtMs: null });
  await sleep(1600);
  await expect(a.request(s.sessionId)).resolves.toMatchObject({ closeReason: 'expired' });
});

it('without an epoch observed (no take yet) every read goes to Redis', async () => {
  const { a, hash } = fleet();
  const s = session(8);
  await a.sessions.create(s);
  await expect(a.sessions.get(s.sessionId)).resolves.toMatchObject({ jti: 'jti-8' });
  const redis = new Redis(server.url);
  await redis.del(hash(s.sessionId));
  redis.disconnect();
  await expect(a.sessions.get(s.sessionId)).resolves.toBeNull();
});

it('a change the epoch missed (an older instance mid-deploy, an epoch reset) is served no longer than the cache max age', async () => {
  const { a, hash } = fleet({ cacheMaxAgeMs: 1500 });
  const s = session(40);
  await a.sessions.create(s);
  await expect(a.request(s.sessionId)).resolves.toMatchObject({ closedAtMs: null });
  // Closed behind the epoch's back, as an instance without the epoch scripts would close it.
  const redis = new Redis(server.url);
  await redis.hset(hash(s.sessionId), 'closedAtMs', String(now), 'closeReason', 'logout');
  redis.disconnect();
  await expect(a.request(s.sessionId)).resolves.toMatchObject({ closedAtMs: null }); // still cached
  await sleep(1600);
  await expect(a.request(s.sessionId)).resolves.toMatchObject({ closedAtMs: now, closeReason: 'logout' });
});

// Found by a probe: after a FLUSHALL the epoch counter started again and climbed back to the value the
// instances had seen, so a session the flush forgot was still served from a cache for up to its max age.
it('a Redis that lost its data is a new epoch: sessions it forgot are not served from a cache', async () => {
  const { a, b } = fleet({ cacheMaxAgeMs: 60_000 });
  const s = session(42);
  await a.sessions.create(s);
  await expect(a.request(s.sessionId)).resolves.toMatchObject({ closedAtMs: null }); // cached on a
  await server.flush();
  await b.sessions.create(session(43)); // the counter is back where it was before the flush
  await expect(a.request(s.sessionId)).resolves.toBeNull();
});

it('cacheEntries 0 turns the cache off: every read goes to Redis', async () => {
  const { a, hash } = fleet({ cacheEntries: 0 });
  const s = session(41);
  await a.sessions.create(s);
  await expect(a.request(s.sessionId)).resolves.toMatchObject({ closedAtMs: null });
  const redis = new Redis(server.url);
  await redis.del(hash(s.sessionId));
  redis.disconnect();
  await expect(a.request(s.sessionId)).resolves.toBeNull();
});
