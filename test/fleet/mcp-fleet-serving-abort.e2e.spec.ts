/**
 * A fleet session (STORE=redis) whose POST's client resets its connection while the directory marks the
 * session as serving (`serve`, a Redis round trip, held back here by a proxy between the app and
 * Redis): the response has closed before the end-of-request touch was listened for, and that touch must
 * still come. A review of ae66691b: the 'close' listener was added after the await, missed the close,
 * and the session kept its 2 min serving lease: one aborted POST held its slot from any reclaim.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { INITIALIZE, openRawSession, rawSessionPost, requestFrom } from '../mcp/support/mcp-probe.js';
import { openRaw } from '../support/raw-http.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestAppFleet, type TestAppFleet } from '../support/test-app-fleet.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A TCP proxy to Redis that, while `holdMs` > 0, holds back for that long what mentions a session key. */
function startDelayingProxy(
  port: number,
): Promise<{ server: Server; port: number; holdMs: { value: number } }> {
  const holdMs = { value: 0 };
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect({ port, host: '127.0.0.1' });
    sockets.add(client).add(upstream);
    let queue = Promise.resolve();
    client.on('data', (chunk) => {
      const hold = chunk.includes('{mcp}:s:') ? holdMs.value : 0;
      queue = queue.then(() => sleep(hold)).then(() => void upstream.write(chunk));
    });
    upstream.on('data', (chunk) => client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  });
  server.on('close', () => sockets.forEach((socket) => socket.destroy()));
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : 0, holdMs });
    }),
  );
}

let redis: RedisServer;
let proxy: Awaited<ReturnType<typeof startDelayingProxy>>;
let fleet: TestAppFleet;
let admin: Redis;
beforeAll(async () => {
  redis = await startRedisServer();
  proxy = await startDelayingProxy(redis.port);
  fleet = await startTestAppFleet(1, {
    REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
    MCP_MAX_SESSIONS: '1',
    MCP_MAX_SESSIONS_PER_ADDRESS: '1',
    MCP_SESSION_RECLAIM_IDLE_MS: '1000',
  });
  admin = new Redis(redis.url);
});
afterAll(async () => {
  admin?.disconnect();
  await fleet?.close();
  proxy?.server.close();
  await redis?.stop();
});

const initializeFrom = (address: string) =>
  requestFrom(fleet.instances[0].baseUrl, address, { method: 'POST', body: INITIALIZE });

it('a POST whose client resets while its session is being marked serving leaves no lease: the slot is reclaimable once idle 1 s', async () => {
  const id = await openRawSession(fleet.instances[0].baseUrl);
  expect((await initializeFrom('127.0.0.2')).status).toBe(429);
  // `serve` reaches Redis 300 ms late (below the app's 500 ms command timeout): its client is gone by then.
  proxy.holdMs.value = 300;
  const connection = await openRaw(fleet.instances[0].baseUrl);
  connection.socket.write(rawSessionPost(new URL(fleet.publicBaseUrl).host, id, 2, 'tools/list', {}));
  await sleep(150);
  connection.socket.resetAndDestroy();
  await connection.closed;
  proxy.holdMs.value = 0; // the held `serve` still reaches Redis at 300 ms
  await sleep(400);
  // Its last use is that request's end, not 2 min ahead (the serving lease).
  expect(Number(await admin.zscore('passport:{mcp}:all', id))).toBeLessThanOrEqual(Date.now());
  await sleep(1200);
  expect((await initializeFrom('127.0.0.2')).status).toBe(200);
}, 30_000);

it('a POST answered 503 because serve() timed out leaves no lease when Redis runs it late: the slot is reclaimable once idle 1 s', async () => {
  await redis.clearState();
  const id = await openRawSession(fleet.instances[0].baseUrl);
  expect((await initializeFrom('127.0.0.2')).status).toBe(429);
  // `serve` reaches Redis 800 ms late, past the app's 500 ms command timeout: 503, then Redis runs it.
  proxy.holdMs.value = 800;
  const refused = await requestFrom(fleet.instances[0].baseUrl, '127.0.0.1', {
    method: 'POST',
    headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
    body: { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
  });
  proxy.holdMs.value = 0;
  expect(refused.status).toBe(503);
  await sleep(1000);
  // Its last use is no later than now, not 2 min ahead (the serving lease of a request never served).
  expect(Number(await admin.zscore('passport:{mcp}:all', id))).toBeLessThanOrEqual(Date.now());
  await sleep(1200);
  expect((await initializeFrom('127.0.0.2')).status).toBe(200);
}, 30_000);

// A mutation probe of 1.15.0: with the `socket.destroyed` check dropped (the response's `closed` only),
// every test passed. A POST pipelined behind another has no socket of its own yet: its connection reset
// while `serve` was in flight leaves its response never closed, and only the socket says it is gone.
// Fails on mutant: `if (reply.raw.closed) ended()` without `|| socket.destroyed`.
it('POSTs pipelined on one connection, reset while their session is being marked serving, leave no lease', async () => {
  await redis.clearState();
  const id = await openRawSession(fleet.instances[0].baseUrl);
  const host = new URL(fleet.publicBaseUrl).host;
  proxy.holdMs.value = 150;
  const connection = await openRaw(fleet.instances[0].baseUrl);
  let payload = '';
  for (let rpcId = 2; rpcId <= 3; rpcId++) payload += rawSessionPost(host, id, rpcId, 'tools/list', {});
  connection.socket.write(payload);
  await sleep(60);
  connection.socket.resetAndDestroy();
  await connection.closed;
  proxy.holdMs.value = 0;
  await sleep(800);
  await expect(admin.zcard(`passport:{mcp}:r:${id}`)).resolves.toBe(0);
  expect(Number(await admin.zscore('passport:{mcp}:all', id))).toBeLessThanOrEqual(Date.now());
}, 30_000);
