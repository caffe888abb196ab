/**
 * Mutation probe of 1.15.0's lease bookkeeping in the fleet's /mcp controller (STORE=redis): each test
 * fails on the mutant it names and passes on the real code. (An ended POST left in its connection's set
 * is pinned in mcp-fleet-serving-pipelined.e2e.spec.ts.)
 */
import { type Server } from 'node:http';
import { type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { openRawSession, rawSessionPost } from '../mcp/support/mcp-probe.js';
import { openRaw } from '../support/raw-http.js';
import { startTestAppFleet, type TestAppFleet } from '../support/test-app-fleet.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
