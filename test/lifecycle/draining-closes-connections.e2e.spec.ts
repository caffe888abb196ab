/**
 * While the app drains, every answer says `Connection: close` so that keep-alive clients (a balancer's
 * pool) open their next request on another instance: routed answers (the request hook) and answers
 * written before routing (a bad URL, Fastify's frameworkErrors) alike. From a mutation probe: no test
 * sent a request while draining, so either rule could be dropped with every test passing.
 */
import { Readiness } from '../../apps/api/src/platform/lifecycle/readiness.js';
import { openRaw, parseRawResponse, waitFor } from '../support/raw-http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ STORE: 'memory' });
});
afterAll(async () => {
  await t?.close();
});

async function keepAliveGet(path: string) {
  const connection = await openRaw(t.baseUrl);
  connection.socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
  const response = parseRawResponse(await waitFor(connection, (s) => s.includes('\r\n\r\n'), 2000));
  const closed = await Promise.race([
    connection.closed,
    new Promise<null>((r) => setTimeout(() => r(null), 1000)),
  ]);
  connection.socket.destroy();
  return { response, closed: closed !== null };
}

it('before draining a keep-alive request keeps its connection', async () => {
  const { response, closed } = await keepAliveGet('/health');
  expect(response.headers.get('connection')).not.toBe('close');
  expect(closed).toBe(false);
});

describe('while draining', () => {
  beforeAll(() => t.app.get(Readiness).markDraining());

  it.each([
    ['a routed request', '/health'],
    ['a bad URL, answered before routing', '/api/identity/token/%ff/public'],
  ])('%s is answered Connection: close and its connection closed', async (_, path) => {
    const { response, closed } = await keepAliveGet(path);
    expect(response.headers.get('connection')).toBe('close');
    expect(closed).toBe(true);
  });
});
