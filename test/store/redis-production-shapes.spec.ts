/**
 * Redis in production shape (ACL users, passwords): found by a probe.
 *
 * 1. An ACL user that may not run SELECT, with a database index in REDIS_URL: ioredis's SELECT is
 *    refused with NOPERM, the error was ignored (only "DB index is out of range" counted), and the client
 *    went on with database 0, healthy, sharing it with whatever else lives there (storage.md promises
 *    the client "disconnects for good instead of going on with database 0").
 * 2. A wrong password: health said only "redis unavailable" and the log only "redis connection lost,
 *    reconnecting"; nothing named the authentication failure.
 */
import { Redis } from 'ioredis';
import { createRedisClient, redisClientProblem, RedisReplayStore } from '@passport/adapters/redis';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestApp } from '../support/test-app.js';

let server: RedisServer;
let admin: Redis;
beforeAll(async () => {
  server = await startRedisServer();
  admin = new Redis(server.url);
  await admin.call('ACL', 'SETUSER', 'nosel', 'on', '>pwsel', '~*', '+@all', '-select');
  await admin.call('ACL', 'SETUSER', 'app', 'on', '>right', '~*', '+@all');
});
afterAll(async () => {
  admin.disconnect();
  await server.stop();
});

const eventually = async (check: () => boolean, ms = 3000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

it('a database index the ACL user may not SELECT: the client fails closed and writes nothing to database 0', async () => {
  const before = await admin.dbsize();
  const client = createRedisClient(`redis://nosel:pwsel@127.0.0.1:${server.port}/5`);
  try {
    await eventually(() => redisClientProblem(client) !== undefined);
    expect(redisClientProblem(client)).toMatch(/database 5/);
    const store = new RedisReplayStore(client, { prefix: 'noselect:' });
    await expect(store.recordIfAbsent('k', 1000, 5000)).rejects.toThrow();
    expect(await admin.dbsize()).toBe(before);
  } finally {
    client.disconnect();
  }
});

it('a wrong password: health names the authentication failure, not just "redis unavailable"', async () => {
  const app = await startTestApp({
    STORE: 'redis',
    REDIS_URL: `redis://app:wrong@127.0.0.1:${server.port}`,
  });
  try {
    await new Promise((r) => setTimeout(r, 1500));
    const body = (await (await fetch(`${app.baseUrl}/health`)).json()) as {
      checks: { store: { problem?: string } };
    };
    expect(body.checks.store.problem).toMatch(/WRONGPASS|auth/i);
    expect(JSON.stringify(body)).not.toContain('wrong');
  } finally {
    await app.close();
  }
});
