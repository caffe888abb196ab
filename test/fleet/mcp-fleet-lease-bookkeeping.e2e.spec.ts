/**
 * Mutation probe of 1.15.0's lease bookkeeping in the fleet's /mcp controller (STORE=redis): each test
 * fails on the mutant it names and passes on the real code.
 */
import { type IncomingMessage, type Server } from 'node:http';
import { type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Redis } from 'ioredis';
import { openRawSession, rawSessionPost } from '../mcp/support/mcp-probe.js';
import { openRaw } from '../support/raw-http.js';
import { startTestAppFleet, type TestAppFleet } from '../support/test-app-fleet.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The collector, to see whether the app still holds a request it has answered.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let fleet: TestAppFleet;
let admin: Redis;
beforeAll(async () => {
  fleet = await startTestAppFleet(1);
  admin = new Redis(fleet.redis.url);
}, 60_000);
afterAll(async () => {
  admin?.disconnect();
  await fleet?.close();
});

// Fails on mutant: the socket's 'close' listener added by every POST (a new set per request) in place of
// one per connection: a client keeping one connection for its whole session piled them up past Node's 10.
it('twelve POSTs one after another on one keep-alive connection leave one close listener of ours on it', async () => {
  const id = await openRawSession(fleet.instances[0].baseUrl);
  const sockets: Socket[] = [];
  const onConnection = (socket: Socket) => sockets.push(socket);
  const server = fleet.instances[0].app.getHttpServer() as Server;
  server.on('connection', onConnection);
  try {
    const connection = await openRaw(fleet.instances[0].baseUrl);
    const host = new URL(fleet.publicBaseUrl).host;
    const listeners: number[] = [];
    for (let rpcId = 1; rpcId <= 12; rpcId++) {
      const before = connection.received().length;
      connection.socket.write(rawSessionPost(host, id, rpcId, 'tools/list', {}));
      const deadline = Date.now() + 5000;
      while (!/\r\n\r\n[\s\S]*"id":\d+/.test(connection.received().slice(before))) {
        if (Date.now() > deadline) throw new Error(`POST ${rpcId} not answered`);
        await sleep(10);
      }
      expect(sockets).toHaveLength(1);
      listeners.push(sockets[0].listenerCount('close'));
    }
    expect(connection.received().match(/^HTTP\/1\.1 200 /gm)?.length).toBe(12);
    // As many after the twelfth POST as after the first.
    expect(listeners[11]).toBe(listeners[0]);
    connection.socket.destroy();
    await connection.closed;
  } finally {
    server.off('connection', onConnection);
  }
}, 30_000);

// Fails on mutant: a POST's end leaving its `ended` in the connection's set (`onSocketClose...delete(ended)`
// dropped): every answered POST's request and reply stayed reachable until the connection closed, and an
// MCP client keeps one connection open for its whole session (19 of 19 answered requests still held).
it('an answered POST is not held until its keep-alive connection closes', async () => {
  const id = await openRawSession(fleet.instances[0].baseUrl);
  const requests: WeakRef<IncomingMessage>[] = [];
  const onRequest = (request: IncomingMessage) => requests.push(new WeakRef(request));
  const server = fleet.instances[0].app.getHttpServer() as Server;
  server.on('request', onRequest);
  const connection = await openRaw(fleet.instances[0].baseUrl);
  try {
    const host = new URL(fleet.publicBaseUrl).host;
    for (let rpcId = 1; rpcId <= 20; rpcId++) {
      const before = connection.received().length;
      connection.socket.write(rawSessionPost(host, id, rpcId, 'tools/list', {}));
      const deadline = Date.now() + 5000;
      while (!/\r\n\r\n[\s\S]*"id":\d+/.test(connection.received().slice(before))) {
        if (Date.now() > deadline) throw new Error(`POST ${rpcId} not answered`);
        await sleep(10);
      }
    }
    expect(requests).toHaveLength(20);
    await sleep(200);
    for (let i = 0; i < 5; i++) {
      gc();
      await sleep(50);
    }
    // The first 19 are answered (the connection still open): none is held for it.
    const held = requests.slice(0, 19).filter((request) => request.deref() !== undefined);
    expect(held.length).toBeLessThanOrEqual(2);
  } finally {
    server.off('request', onRequest);
    connection.socket.destroy();
    await connection.closed;
  }
}, 30_000);
