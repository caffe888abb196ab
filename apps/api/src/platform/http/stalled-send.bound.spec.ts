/**
 * The bound reads write progress from Node's private socket-handle counters: a Node version without them
 * must be said (once), not leave the bound off without a word (a review). The bound itself is tested over
 * real HTTP in test/e2e/stalled-send.e2e.spec.ts.
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { boundStalledSends } from './stalled-send.bound.js';

describe('boundStalledSends', () => {
  let server: Server;
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('says once that progress cannot be read when the socket handle has no counters', async () => {
    server = createServer(() => undefined);
    server.on('connection', (socket: Socket) => {
      const handle = (socket as unknown as { _handle: object })._handle;
      Object.defineProperty(handle, 'writeQueueSize', { value: undefined });
    });
    let said = 0;
    const bound = boundStalledSends(server, 1000, undefined, () => said++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const clients = [connect(port, '127.0.0.1'), connect(port, '127.0.0.1')];
    await new Promise((resolve) => setTimeout(resolve, 2300));
    expect(said).toBe(1);
    expect(bound.destroyed()).toBe(0);
    bound.close();
    for (const client of clients) client.destroy();
  });

  it('says nothing where the counters are there', async () => {
    server = createServer(() => undefined);
    let said = 0;
    const bound = boundStalledSends(server, 1000, undefined, () => said++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const client = connect(port, '127.0.0.1');
    await new Promise((resolve) => setTimeout(resolve, 1300));
    expect(said).toBe(0);
    bound.close();
    client.destroy();
  });
});
