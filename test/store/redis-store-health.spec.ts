/**
 * The Redis store's health names why it is degraded, including the moment after Redis comes back and
 * before the rate limits have returned to it (a probe saw `degraded` with no reason for about a second).
 */
import { createRedisStoreBackend } from '../../apps/api/src/platform/store/redis.store-backend.js';
import { type StoreBackend } from '../../apps/api/src/platform/store/store-backend.types.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

let server: RedisServer;
let backend: StoreBackend;
beforeAll(async () => {
  server = await startRedisServer();
  backend = createRedisStoreBackend({ url: server.url, commandTimeoutMs: 200 });
});
afterAll(async () => {
  backend.close();
  await server.stop();
});

const policy = { capacity: 10, refillPerMs: 0.01 };

async function eventually(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('says the rate limits are on in-process buckets while they are, Redis answering again or not', async () => {
  await eventually(async () => (await backend.health.check()).ok);
  server.pause();
  try {
    await backend.rateLimit.take('health-probe', policy, Date.now()); // times out: the in-process bucket answers
  } finally {
    server.resume();
  }
  const degraded = await backend.health.check();
  expect(degraded.ok).toBe(false);
  expect(degraded.detail).toMatchObject({
    rateLimits: 'in-process fallback',
    // With what the take failed with: a full Redis (OOM) answers PING and refuses every take.
    problem:
      'rate limits on in-process buckets until their next take reaches redis again (last failure: Command timed out)',
  });
  // The next take after the retry interval (1 s) goes back to Redis, and health with it.
  await new Promise((r) => setTimeout(r, 1100));
  await backend.rateLimit.take('health-probe', policy, Date.now());
  await eventually(async () => (await backend.health.check()).ok);
  expect((await backend.health.check()).detail).toMatchObject({ rateLimits: 'shared' });
});
