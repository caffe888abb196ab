/**
 * HTTP_MAX_CONNECTIONS_PER_ADDRESS over real sockets against the real app. A hostile-neighbour probe: a
 * connection that sends nothing meets no request limit, and 1,100 idle sockets from one address under a
 * 1,024-descriptor limit reset every other client's connection (and made a ledger read fail with EMFILE).
 * Loopback sources 127.0.0.x are separate client addresses (all of 127.0.0.0/8 routes to lo).
 */
import { connect, type Socket } from 'node:net';
import { startTestApp, type TestApp } from '../support/test-app.js';

const MAX = 3;

/** An idle connection from `localAddress`, once it is established. */
function openIdle(app: TestApp, localAddress: string): Promise<Socket> {
  const { hostname, port } = new URL(app.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress }, () => resolve(socket));
    socket.on('error', reject);
  });
}

/** One request on a new connection from `localAddress`: what came back, whole, until the server closed. */
function exchange(app: TestApp, localAddress: string, path = '/health'): Promise<string> {
  const { hostname, port } = new URL(app.baseUrl);
  return new Promise((resolve) => {
    let text = '';
    const socket = connect({ host: hostname, port: Number(port), localAddress }, () =>
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`),
    );
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('close', () => resolve(text));
    socket.on('error', () => undefined);
  });
}

const statusOf = (text: string): number => Number(text.slice(9, 12));
const bodyOf = (text: string): any => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

describe('connections one client address may hold open', () => {
  let app: TestApp;
  const held: Socket[] = [];
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory', HTTP_MAX_CONNECTIONS_PER_ADDRESS: String(MAX) });
  });
  afterEach(() => {
    for (const socket of held.splice(0)) socket.destroy();
    return settle();
  });
  afterAll(() => app.close());

  it('refuses a connection beyond the bound with 429 in the envelope before reading its request; others are served', async () => {
    for (let i = 0; i < MAX; i++) held.push(await openIdle(app, '127.0.0.2'));
    const refused = await exchange(app, '127.0.0.2');
    expect(statusOf(refused)).toBe(429);
    expect(refused).toMatch(/\r\nRetry-After: 1\r\n/i);
    expect(refused).toMatch(/\r\nConnection: close\r\n/i);
    expect(bodyOf(refused).error).toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
      details: { reason: 'connections_per_address', maxConnectionsPerAddress: MAX, retryAfterSeconds: 1 },
    });
    // Another address is not affected.
    expect(statusOf(await exchange(app, '127.0.0.3'))).toBe(200);
  });

  it('gives a slot back when a connection closes', async () => {
    for (let i = 0; i < MAX; i++) held.push(await openIdle(app, '127.0.0.4'));
    expect(statusOf(await exchange(app, '127.0.0.4'))).toBe(429);
    held.pop()!.destroy();
    await settle();
    expect(statusOf(await exchange(app, '127.0.0.4'))).toBe(200);
  });

  it('counts the connections that are served: the bound is on open connections, not on idle ones', async () => {
    const answers = await Promise.all(Array.from({ length: MAX + 2 }, () => exchange(app, '127.0.0.5')));
    const statuses = answers.map(statusOf).sort();
    // Each exchange closes after its answer: at least MAX are served, and any refusal is the bound's.
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(MAX);
    for (const text of answers.filter((t) => statusOf(t) === 429))
      expect(bodyOf(text).error.details.reason).toBe('connections_per_address');
  });
});

describe('a trusted proxy', () => {
  let app: TestApp;
  const held: Socket[] = [];
  beforeAll(async () => {
    app = await startTestApp({
      STORE: 'memory',
      HTTP_MAX_CONNECTIONS_PER_ADDRESS: String(MAX),
      TRUSTED_PROXIES: '127.0.0.6',
    });
  });
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await app.close();
  });

  it('is not bounded: it carries many clients', async () => {
    for (let i = 0; i < MAX + 2; i++) held.push(await openIdle(app, '127.0.0.6'));
    expect(statusOf(await exchange(app, '127.0.0.6'))).toBe(200);
  });
});
