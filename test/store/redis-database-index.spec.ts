/**
 * A REDIS_URL naming a database the server does not have (found by a probe): ioredis's SELECT failed,
 * the error was swallowed, and the client went on using database 0, so fleets kept apart by database
 * index silently shared replay records and sessions. The client now fails closed: it disconnects,
 * its commands fail (verify 503, JWT routes 503), and the reason is reported.
 */
import { Redis } from 'ioredis';
import {
  createRedisClient,
  redisClientProblem,
  RedisReplayStore,
  whenConnected,
} from '@passport/adapters/redis';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestApp } from '../support/test-app.js';

let server: RedisServer;
let db0: Redis;
beforeAll(async () => {
  server = await startRedisServer();
  db0 = new Redis(server.url);
});
afterAll(async () => {
  db0.disconnect();
  await server.stop();
});

const eventually = async (check: () => boolean, ms = 3000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

it('a database index the server refuses: the client fails closed, says why, and writes nothing to database 0', async () => {
  const before = await db0.dbsize();
  const client = createRedisClient(`${server.url}/99`);
  try {
    await eventually(() => redisClientProblem(client) !== undefined);
    expect(redisClientProblem(client)).toMatch(/database 99/);
    const store = new RedisReplayStore(client, { prefix: 'dbindex:' });
    await expect(store.recordIfAbsent('k', 1000, 5000)).rejects.toThrow();
    expect(await db0.dbsize()).toBe(before);
  } finally {
    client.disconnect();
  }
});

it('a database index the server has: used as named, no problem reported', async () => {
  const client = createRedisClient(`${server.url}/3`);
  try {
    expect(await whenConnected(client, 3000)).toBe(true);
    await new RedisReplayStore(client, { prefix: 'dbindex:' }).recordIfAbsent(
      'k',
      Date.now(),
      Date.now() + 5000,
    );
    expect(redisClientProblem(client)).toBeUndefined();
    const db3 = new Redis(`${server.url}/3`);
    expect(await db3.dbsize()).toBeGreaterThan(0);
    db3.disconnect();
  } finally {
    client.disconnect();
  }
});

// Found by a probe of the fleet: health named the refused index, but GET /health/ready answered 200, so
// an orchestrator kept an instance in rotation that could only refuse (verify and JWT routes 503).
it('an app on a database index the server refuses is not ready: 503 misconfigured, naming the problem', async () => {
  const app = await startTestApp({ STORE: 'redis', REDIS_URL: `${server.url}/99` });
  try {
    const res = await fetch(`${app.baseUrl}/health/ready`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as {
      error: { code: string; details: { state: string; problem: string } };
    };
    expect(body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(body.error.details.state).toBe('misconfigured');
    expect(body.error.details.problem).toMatch(/database 99/);
  } finally {
    await app.close();
  }
  const healthy = await startTestApp({ STORE: 'redis', REDIS_URL: `${server.url}/4` });
  try {
    expect((await fetch(`${healthy.baseUrl}/health/ready`)).status).toBe(200);
  } finally {
    await healthy.close();
  }
});
