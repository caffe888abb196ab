/**
 * The Redis session store's indexes against a real redis-server: a session hash can be gone while its
 * index entries remain (its TTL ran out during a long time without sweeps, or it was deleted), and
 * list/countOpen/sweep must then skip and forget those entries, never return a record with NaN dates.
 * And a sweep of many sessions works in batches of 1000 per script call.
 */
import { Redis } from 'ioredis';
import { sampleSessionRecord } from '@passport/core/testing';
import { type SessionRecord } from '@passport/core/ports';
import { RedisSessionStore } from '@passport/adapters/redis';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { RedisMonitor } from '../support/redis-monitor.js';

let server: RedisServer;
let client: Redis;
let prefixes = 0;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  server = await startRedisServer();
  client = new Redis(server.url);
});
afterAll(async () => {
  client.disconnect();
  await server.stop();
});

function open(options: { maxEntries?: number } = {}) {
  const prefix = `idx${++prefixes}:`;
  return {
    store: new RedisSessionStore(client, { prefix, ...options }),
    hash: (id: string) => `${prefix}{sess}:s:${id}`,
  };
}

const now = Date.now();
const live = (n: number, overrides: Partial<SessionRecord> = {}): SessionRecord =>
  sampleSessionRecord(n, { createdAtMs: now + n, expiresAtMs: now + 3_600_000, ...overrides });

const valid = (s: SessionRecord): boolean =>
  Number.isFinite(s.createdAtMs) && Number.isFinite(s.expiresAtMs) && typeof s.sessionId === 'string';

it('list and countOpen skip (and forget) sessions whose hash was deleted; no NaN dates', async () => {
  const { store, hash } = open();
  for (const n of [1, 2, 3, 4]) await store.create(live(n));
  await client.del(hash(live(2).sessionId), hash(live(4).sessionId));

  const page = await store.list({ offset: 0, limit: 10 });
  expect(page.items.map((s) => s.jti)).toEqual(['jti-3', 'jti-1']);
  expect(page.items.every(valid)).toBe(true);
  expect(page.total).toBe(2);
  await expect(store.countOpen(now)).resolves.toBe(2);
  await expect(store.size).resolves.toBe(2);
});

it('a page is filled from the entries after a forgotten one', async () => {
  const { store, hash } = open();
  for (const n of [1, 2, 3, 4, 5]) await store.create(live(n));
  await client.del(hash(live(4).sessionId));
  const page = await store.list({ offset: 1, limit: 2 });
  expect(page.items.map((s) => s.jti)).toEqual(['jti-3', 'jti-2']);
  expect(page.total).toBe(4);
});

it('countOpen forgets entries whose hash is gone', async () => {
  const { store, hash } = open();
  for (const n of [1, 2, 3]) await store.create(live(n));
  await client.del(hash(live(1).sessionId));
  await expect(store.countOpen(now)).resolves.toBe(2);
  await expect(store.size).resolves.toBe(2);
});

it('after the hashes expired (a long time without sweeps) one sweep removes every index entry', async () => {
  const { store, hash } = open();
  await store.create(live(1, { expiresAtMs: now + 1 }));
  await store.create(live(2, { expiresAtMs: now + 2 }));
  await store.create(live(3));
  await store.close(live(3).sessionId, 'logout', now + 10);
  for (const n of [1, 2, 3]) await client.pexpire(hash(live(n).sessionId), 1);
  await sleep(20);

  await expect(store.sweep(now + 1000)).resolves.toBe(3);
  await expect(store.size).resolves.toBe(0);
  await expect(store.list({ offset: 0, limit: 10 })).resolves.toEqual({ items: [], total: 0 });
  // Nothing of the three is left under the prefix but the creation counter and the session epoch.
  const keys = await client.keys(`idx${prefixes}:*`);
  expect(keys.sort()).toEqual([`idx${prefixes}:{sess}:epoch`, `idx${prefixes}:{sess}:seq`]);
});

it('closing or renewing a session whose hash expired refuses and leaves no partial record behind', async () => {
  const { store, hash } = open();
  await store.create(live(1));
  await client.pexpire(hash(live(1).sessionId), 1);
  await sleep(20);
  await expect(store.recordRenewal(live(1).sessionId, now)).resolves.toBe(false);
  await expect(store.close(live(1).sessionId, 'logout', now)).resolves.toBe(false);
  await expect(client.exists(hash(live(1).sessionId))).resolves.toBe(0);
  await expect(store.list({ offset: 0, limit: 10 })).resolves.toEqual({ items: [], total: 0 });
  await expect(store.get(live(1).sessionId)).resolves.toBeNull();
});

it('a sweep of 2500 expired sessions removes them all in script calls of at most 1000', async () => {
  const { store } = open();
  const sessions = Array.from({ length: 2500 }, (_, i) =>
    sampleSessionRecord(i, {
      sessionId: `sess_t${i}_X`,
      tokenId: `t${i}`,
      createdAtMs: 1000 + i,
      expiresAtMs: 5000 + i,
    }),
  );
  await Promise.all(sessions.map((s) => store.create(s)));
  const monitor = await RedisMonitor.start(server.url);
  try {
    await monitor.reset();
    await expect(store.sweep(10_000)).resolves.toBe(2500);
    await monitor.settle();
  } finally {
    monitor.stop();
  }
  // EVALSHA <sha> <n> <n keys> <base> <now> <limit>: the sweep's calls are the ones at now = 10000.
  const argvOf = (args: string[]) => args.slice(3 + Number(args[2]));
  const sweepCalls = monitor.commands
    .filter(({ args }) => /^eval/i.test(args[0]) && argvOf(args)[1] === '10000')
    .map(({ args }) => Number(argvOf(args)[2]));
  expect(sweepCalls).toEqual([1000, 1000, 1000]);
  await expect(store.size).resolves.toBe(0);
});

it('a full store with 2500 expired sessions still takes a new one (its sweep frees room in one batch)', async () => {
  const { store } = open({ maxEntries: 2500 });
  await Promise.all(
    Array.from({ length: 2500 }, (_, i) =>
      store.create(
        sampleSessionRecord(i, {
          sessionId: `sess_t${i}_Y`,
          tokenId: `t${i}`,
          createdAtMs: 1000,
          expiresAtMs: 2000,
        }),
      ),
    ),
  );
  await expect(
    store.create(sampleSessionRecord(9, { createdAtMs: 3000, expiresAtMs: 9_000_000 })),
  ).resolves.toBeUndefined();
  await expect(store.size).resolves.toBe(1501);
});

it("a passport's set holds only its sessions not closed: superseded and logged-out ones leave it at once, the bound still holds", async () => {
  const prefix = `idx${++prefixes}:`;
  const store = new RedisSessionStore(client, { prefix, maxOpenPerPassport: 3 });
  const passport = (n: number) => live(n, { tokenId: 'aaaaaaaaaaaa', sessionId: `sess_a_${n}` });
  for (let n = 1; n <= 10; n++) await store.create(passport(n));
  await store.close(passport(10).sessionId, 'logout', now + 20);
  // Created already closed: never a member.
  await store.create(
    live(11, { tokenId: 'aaaaaaaaaaaa', sessionId: 'sess_a_11', closedAtMs: now, closeReason: 'logout' }),
  );
  expect(await client.zrange(`${prefix}{sess}:p:aaaaaaaaaaaa`, 0, -1)).toEqual(['sess_a_8', 'sess_a_9']);
  await expect(store.get('sess_a_7')).resolves.toMatchObject({ closeReason: 'superseded' });
  await store.create(passport(12));
  await store.create(passport(13));
  expect(await client.zrange(`${prefix}{sess}:p:aaaaaaaaaaaa`, 0, -1)).toEqual([
    'sess_a_9',
    'sess_a_12',
    'sess_a_13',
  ]);
  await expect(store.get('sess_a_8')).resolves.toMatchObject({ closeReason: 'superseded' });
  await expect(store.get('sess_a_9')).resolves.toMatchObject({ closedAtMs: null });
});

// Found by a probe (on the MCP directory): Redis checks a script for OOM only up to its first write, and
// a create at the store's cap first sweeps (writes Redis allows when full). A Redis out of memory now
// refuses the create outright: no session, no index entry.
it('a Redis out of memory refuses a new session, even at the cap where the create first sweeps', async () => {
  const { store, hash } = open({ maxEntries: 2 });
  await store.create(live(1, { expiresAtMs: now - 1000 }));
  await store.create(live(2));
  await client.config('SET', 'maxmemory-policy', 'noeviction');
  await client.config('SET', 'maxmemory', '1');
  try {
    await expect(store.create(live(3))).rejects.toThrow(/OOM/);
  } finally {
    await client.config('SET', 'maxmemory', '0');
  }
  await expect(client.exists(hash(live(3).sessionId))).resolves.toBe(0);
  await expect(store.create(live(3))).resolves.toBeUndefined();
});
