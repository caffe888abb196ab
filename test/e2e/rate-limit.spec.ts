/**
 * The public per-address rate limit over real HTTP with tiny settings (capacity 3, refill 1/min), and
 * the client-address rule: `X-Forwarded-For` is ignored from an untrusted peer and, from a trusted
 * proxy, the right-most untrusted entry is the key (docs/protocol.md §7).
 */
import { randomUUID } from 'node:crypto';
import { type Server } from 'node:http';
import { connect } from 'node:net';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import { contractFor, expectMatchesOpenApi } from '../support/openapi-contract.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const TINY = { STORE: 'memory', RATE_LIMIT_CAPACITY: '3', RATE_LIMIT_REFILL_PER_MINUTE: '1' };

async function get(t: TestApp, path: string, xff?: string) {
  const res = await fetch(`${t.baseUrl}${path}`, { headers: xff ? { 'x-forwarded-for': xff } : {} });
  const body = await res.json();
  return { status: res.status, headers: res.headers, body };
}

describe('untrusted peer (no TRUSTED_PROXIES)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(TINY);
    await contractFor(t.baseUrl); // loading the document takes the first of the 3 tokens
  });
  afterAll(async () => {
    await t?.close();
  });

  it('spoofed X-Forwarded-For values all share the peer bucket; the 4th request is 429 with Retry-After', async () => {
    for (const xff of ['1.1.1.1', '2.2.2.2']) expect((await get(t, '/health', xff)).status).toBe(200);
    const limited = await get(t, '/api/login/timestamp', '3.3.3.3');
    expect(limited.status).toBe(429);
    expectErrorEnvelope(limited, 'RATE_LIMIT_EXCEEDED');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    await expectMatchesOpenApi(t.baseUrl, 'GET', '/api/login/timestamp', limited.status, limited.body);
  });

  it('limits unknown paths too (they are not free)', async () => {
    const res = await get(t, '/no-such-path');
    expect(res.status).toBe(429);
  });
});

// From a mutation probe: answers made before routing (a URL that does not decode) are charged to the
// client's bucket too, and a version that read X-Forwarded-For from any peer there passed every test.
describe('untrusted peer: answers before routing', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(TINY);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a bad URL with a new spoofed X-Forwarded-For each time still shares the peer bucket', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await get(t, '/%ff', `198.51.100.${i + 1}`)).status);
    expect(statuses).toEqual([400, 400, 400, 429, 429]);
  });
});

describe('trusted proxy (TRUSTED_PROXIES=127.0.0.0/8)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ...TINY, TRUSTED_PROXIES: '127.0.0.0/8' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('keys on the right-most untrusted entry: a spoofed left-most entry does not buy a new bucket', async () => {
    for (const spoof of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) {
      expect((await get(t, '/health', `${spoof}, 203.0.113.7`)).status).toBe(200);
    }
    expect((await get(t, '/health', '10.0.0.4, 203.0.113.7')).status).toBe(429);
    expect((await get(t, '/health', '203.0.113.7')).status).toBe(429);
  });

  // Found by a probe of the fleet: forwarded values that are not addresses were keys as they came, so a
  // proxy passing a client's own header on let it be a new client per request (and store 6000-character keys).
  it('forwarded values that are not IP addresses share one bucket', async () => {
    for (const garbage of ['not-an-ip', '198.51.100.9:80:80', 'x'.repeat(6000)])
      expect((await get(t, '/health', garbage)).status).toBe(200);
    expect((await get(t, '/health', 'yet-another-value')).status).toBe(429);
    expect((await get(t, '/health', '198.51.100.9')).status).toBe(200);
  });

  // Found by a probe: some proxies forward the address with its port; those clients all shared the
  // bucket of values that are no address.
  it('an address forwarded with its port (or in brackets) is that address', async () => {
    for (const form of ['198.51.100.20:4000', '198.51.100.20:4001', '198.51.100.20'])
      expect((await get(t, '/health', form)).status).toBe(200);
    expect((await get(t, '/health', '198.51.100.20:4002')).status).toBe(429);
    expect((await get(t, '/health', '[2001:db8::20]:443')).status).toBe(200);
    expect((await get(t, '/health', '198.51.100.21:4000')).status).toBe(200);
  });

  it('different real clients behind the proxy get separate buckets', async () => {
    expect((await get(t, '/health', '198.51.100.1')).status).toBe(200);
    expect((await get(t, '/health', '198.51.100.2')).status).toBe(200);
  });

  it('requests from the proxy itself without X-Forwarded-For use the proxy address', async () => {
    for (let i = 0; i < 3; i++) expect((await get(t, '/health')).status).toBe(200);
    expect((await get(t, '/health')).status).toBe(429);
    // ...which does not affect a client behind it.
    expect((await get(t, '/health', '198.51.100.3')).status).toBe(200);
  });
});

// From a mutation probe: what a trusted proxy forwards is an address only when it is one. A dotted value
// out of range with a port (`256.0.0.1:80`), and a long value that an address with a port or zone would
// start (past 64 characters a value is no address), were each their own key under mutants that passed
// every test: a client whose proxy passes its own header on would be a new client per request.
describe('trusted proxy: forwarded values that only look like addresses', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ...TINY, TRUSTED_PROXIES: '127.0.0.0/8' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('share the one bucket of values that are no address', async () => {
    for (const value of ['256.0.0.1:80', '256.0.0.2:80', '256.0.0.3:80'])
      expect((await get(t, '/health', value)).status).toBe(200);
    expect((await get(t, '/health', '256.0.0.4:80')).status).toBe(429);
    expect((await get(t, '/health', `[fe80::1%${'z'.repeat(70)}]`)).status).toBe(429);
    expect((await get(t, '/health', '198.51.100.40:80')).status).toBe(200);
  });
});

/**
 * Sends `request` (raw HTTP/1.1) and resets the connection as soon as it is written, as a client that
 * does not wait for its answers does.
 */
function sendAndReset(t: TestApp, request: string): Promise<void> {
  const { hostname, port } = new URL(t.baseUrl);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) }, () =>
      socket.write(request, () => {
        socket.resetAndDestroy();
        resolve();
      }),
    );
    socket.on('error', () => resolve());
  });
}

// Found by a probe: a request whose client reset the connection right after sending it reached the
// hooks with `request.ip` undefined (Node reads a socket's peer address on first use, and not once the
// socket is closed). The public limit failed open, so such requests were served and charged nothing
// (20 of them, then 3 answered requests within a capacity of 3), and /mcp threw a TypeError logged at
// error level with its stack, one per request.
describe('a client that resets its connection right after each request', () => {
  let t: TestApp;
  const lines: Array<{ level: number; msg: string }> = [];
  beforeAll(async () => {
    t = await startTestApp(
      { ...TINY, LOG_LEVEL: 'warn' },
      { logDestination: { write: (line: string) => void lines.push(JSON.parse(line)) } },
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is charged as a client that waits, and /mcp logs no error for it', async () => {
    const host = new URL(t.baseUrl).host;
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const mcp =
      `POST /mcp HTTP/1.1\r\nHost: ${host}\r\ncontent-type: application/json\r\n` +
      `accept: application/json, text/event-stream\r\nmcp-session-id: ${randomUUID()}\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    // The POSTs first, so that they take the capacity and reach the MCP controller.
    for (let i = 0; i < 3; i++) await sendAndReset(t, mcp);
    for (let i = 0; i < 3; i++)
      await sendAndReset(t, `GET /api/login/timestamp HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    // The server has seen every reset (no connection left open), and a moment more for their hooks.
    const server = t.app.getHttpServer() as Server;
    for (let open = 1; open > 0;) {
      open = await new Promise<number>((resolve, reject) =>
        server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await get(t, '/api/login/timestamp')).status).toBe(429);
    expect(lines.filter((line) => line.level >= 40).map((line) => line.msg)).toEqual([]);
  });
});
