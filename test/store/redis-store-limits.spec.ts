/**
 * Redis-only limits the shared contract suites do not reach: Lua's `unpack` takes at most ~8000 values,
 * so the scripts that drop expired entries work in batches. With more than that many expired records
 * (or refilled buckets) a full store must still make room, and a sweep must remove them all.
 */
import { Redis } from 'ioredis';
import { RedisRateLimitStore, RedisReplayStore } from '@passport/adapters/redis';
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
