/**
 * The rate limits' fallback names what the shared store last failed with (health's "last failure"): its
 * time and its text set together, as the replay store's since 9bba85c9. A PING probe that fails (a Redis
 * that stopped answering) moved the fallback's time on but kept the text of the take's failure before it,
 * so health named an out-of-memory refusal, long over, as the cause of a fallback held by timeouts.
 * A real redis-server, stopped with SIGSTOP.
 */
import { Redis } from 'ioredis';
import { type BucketPolicy } from '@passport/core/ports';
import { MemoryRateLimitStore } from '@passport/core/memory';
import { RedisRateLimitStore, FallbackRateLimitStore } from '@passport/adapters/redis';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

const policy: BucketPolicy = { capacity: 100, refillPerMs: 1 };
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let server: RedisServer;
let client: Redis;
let admin: Redis;
beforeAll(async () => {
  server = await startRedisServer();
  client = new Redis(server.url, { commandTimeout: 200 });
  admin = new Redis(server.url);
});
afterAll(async () => {
  server.resume();
  client.disconnect();
  admin.disconnect();
  await server.stop();
});

it("a failed probe's time comes with its own text: the earlier take's out-of-memory text is not named for it", async () => {
  const store = new FallbackRateLimitStore(
    new RedisRateLimitStore(client, { prefix: 'text:', namespace: 'public' }),
    new MemoryRateLimitStore(),
    { retryAfterMs: 100, probe: () => client.ping() },
  );
  await admin.config('SET', 'maxmemory-policy', 'noeviction');
  await admin.config('SET', 'maxmemory', '1');
  await expect(store.take('a', policy, Date.now())).resolves.toMatchObject({ allowed: true });
  expect(store.lastFailureMessage).toMatch(/^OOM/);
  await admin.config('SET', 'maxmemory', '0');
  // Redis stops answering: the next take, a retry being due, starts a PING probe, which times out.
  server.pause();
  await sleep(150);
  const failedBefore = store.fallbackSince;
  await store.take('a', policy, Date.now());
  await sleep(400);
  expect(store.fallbackSince).not.toBe(failedBefore);
  expect(store.fallbackSince).not.toBeNull();
  expect(store.lastFailureMessage).not.toMatch(/OOM/);
  expect(store.lastFailureMessage).toMatch(/timed out/i);
  server.resume();
});
