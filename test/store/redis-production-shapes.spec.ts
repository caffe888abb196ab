/**
 * Redis in production shape (ACL users, passwords): found by a probe.
 *
 * 1. An ACL user that may not run SELECT, with a database index in REDIS_URL: ioredis's SELECT is
 *    refused with NOPERM, the error was ignored (only "DB index is out of range" counted), and the client
 *    went on with database 0, healthy, sharing it with whatever else lives there (storage.md promises
 *    the client "disconnects for good instead of going on with database 0").
 * 2. A wrong password: health said only "redis unavailable" and the log only "redis connection lost,
 *    reconnecting"; nothing named the authentication failure (nor a distrusted certificate, nor a
 *    refused connection). Both now add what the connection last failed with.
 */
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { createRedisClient, redisClientProblem, RedisReplayStore } from '@passport/adapters/redis';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { bearer, mintAndLogin } from '../support/passports.js';
import { startTestApp } from '../support/test-app.js';
import { eventually } from '../chain/eventually.js';

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

it('a database index the ACL user may not SELECT: the client fails closed and writes nothing to database 0', async () => {
  const before = await admin.dbsize();
  const client = createRedisClient(`redis://nosel:pwsel@127.0.0.1:${server.port}/5`);
  try {
    await eventually(async () => expect(redisClientProblem(client)).toBeDefined());
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
    type Health = { checks: { store: { problem?: string } } };
    let body: Health | undefined;
    const named = async (): Promise<boolean> => {
      body = (await (await fetch(`${app.baseUrl}/health`)).json()) as Health;
      return /authentication/.test(body.checks.store.problem ?? '');
    };
    const deadline = Date.now() + 10_000;
    while (!(await named()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(body!.checks.store.problem).toBe('redis unavailable: authentication refused (see the log)');
    expect(JSON.stringify(body)).not.toContain('wrong');
    // Public: no host or port of the Redis server.
    expect(JSON.stringify(body)).not.toContain(String(server.port));
  } finally {
    await app.close();
  }
});

// The least-privilege ACL user storage.md gives operators, taken from the document itself.
it('the ACL user of docs/storage.md, on a database of the URL, serves logins and keeps every key under passport:', async () => {
  const storage = readFileSync(new URL('../../docs/storage.md', import.meta.url), 'utf8');
  const line = /`(ACL SETUSER passport [^`]+)`/.exec(storage)?.[1];
  expect(line).toBeDefined();
  await admin.call(...(line!.split(' ') as [string, ...string[]]));
  const app = await startTestApp({
    STORE: 'redis',
    REDIS_URL: `redis://passport:secret@127.0.0.1:${server.port}/3`,
  });
  try {
    const { jwt } = await mintAndLogin(app);
    const nonce = await fetch(`${app.baseUrl}/api/holanonce16ts`, { headers: bearer(jwt) });
    expect(nonce.status).toBe(200);
    const health = (await (await fetch(`${app.baseUrl}/health`)).json()) as { status: string };
    expect(health.status).toBe('healthy');
    const db3 = new Redis(`${server.url}/3`);
    try {
      const keys = await db3.keys('*');
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.filter((key) => !key.startsWith('passport:'))).toEqual([]);
    } finally {
      db3.disconnect();
    }
  } finally {
    await app.close();
  }
});
