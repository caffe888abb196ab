/**
 * Regression tests of the hostile probe's HTTP findings, over real HTTP against the real app:
 * framework URL errors in the envelope and metered, a trailing slash never a 405, a missing Host or an
 * odd Expect answered in the envelope, slow bodies answered 408 and closed, 429s closing their sockets.
 */
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import { openRaw, parseRawResponse, rawRequest, waitFor } from '../support/raw-http.js';
import { mintAndLogin } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

async function call(t: TestApp, path: string, init: RequestInit = {}) {
  const res = await fetch(`${t.baseUrl}${path}`, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // kept as text
  }
  return { status: res.status, headers: res.headers, body };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('framework errors, trailing slashes, Host and Expect', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ STORE: 'memory' });
  });
  afterAll(() => t.close());

  it.each(['/api/identity/token/%ff/public', '/.well-known/did/passport/%E0%A4%A', '/api/mcp/resource/%c0'])(
    'a path that is not valid percent-encoding is 400 INVALID_URL in the envelope: %s',
    async (path) => {
      const res = await call(t, path);
      expectErrorEnvelope(res, 'INVALID_URL');
    },
  );

  it('a supplied request id is echoed on a framework error', async () => {
    const res = await call(t, '/api/identity/token/%ff/public', { headers: { 'x-request-id': 'probe-1' } });
    expect(expectErrorEnvelope(res, 'INVALID_URL').requestId).toBe('probe-1');
  });

  it('an over-long path parameter is 414 URI_TOO_LONG in the envelope', async () => {
    const res = await call(t, `/api/identity/token/${'a'.repeat(500)}/public`);
    expectErrorEnvelope(res, 'URI_TOO_LONG');
  });

  it.each(['/api/agents/', '/health/', '/api/login/timestamp/'])(
    'a trailing slash is 404, never 405: GET %s',
    async (path) => {
      const res = await call(t, path);
      expectErrorEnvelope(res, 'ENDPOINT_NOT_FOUND');
      expect(res.headers.get('allow')).toBeNull();
    },
  );

  it('the path without the slash still answers, and a wrong method on it is still 405', async () => {
    expect((await call(t, '/api/agents')).status).toBe(200);
    const res = await call(t, '/api/agents', { method: 'DELETE' });
    expectErrorEnvelope(res, 'METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toContain('GET');
  });

  // A probe: these targets reach POST /api/identity/verify, yet another method on them was 404.
  it.each(['/api/%69dentity/verify', 'http://evil.example/api/identity/verify', '/api/identity/verify#x'])(
    'a wrong method on a target the router reads as a route is 405 with Allow: DELETE %s',
    async (target) => {
      const res = await rawRequest(
        t.baseUrl,
        `DELETE ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
      );
      expectErrorEnvelope(res, 'METHOD_NOT_ALLOWED');
      expect(res.headers.get('allow')).toBe('POST');
    },
  );

  // A review: decoding %2F into a separator made a path the router does not serve a 405 naming POST.
  it.each(['POST', 'DELETE'])(
    '%s /api/identity%2Fverify is 404: the router does not read %2F as a separator',
    async (method) => {
      const res = await rawRequest(
        t.baseUrl,
        `${method} /api/identity%2Fverify HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
      );
      expectErrorEnvelope(res, 'ENDPOINT_NOT_FOUND');
      expect(res.headers.get('allow')).toBeNull();
    },
  );

  it('a %2F inside a path parameter stays in that segment: DELETE on a routed GET path is 405', async () => {
    const res = await rawRequest(
      t.baseUrl,
      'DELETE /api/identity/token/%2F/public HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
    );
    expectErrorEnvelope(res, 'METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toContain('GET');
  });

  it('an HTTP/1.1 request without Host is 400 HOST_HEADER_REQUIRED in the envelope', async () => {
    const res = await rawRequest(t.baseUrl, 'GET /health HTTP/1.1\r\nConnection: close\r\n\r\n');
    expectErrorEnvelope(res, 'HOST_HEADER_REQUIRED');
  });

  // Found by a probe: Node kept the first of two Host (or Authorization) headers, so a proxy that read the
  // other copy would route or authorise a request the app then answered for a different host or caller.
  it('an HTTP/1.1 request with two Host headers is 400 HOST_HEADER_REQUIRED in the envelope', async () => {
    const res = await rawRequest(
      t.baseUrl,
      'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n',
    );
    const envelope = expectErrorEnvelope(res, 'HOST_HEADER_REQUIRED');
    expect(envelope.error.message).toMatch(/exactly one Host/);
  });

  // From a mutation probe: no test sent an empty Host, and a check that let it through passed.
  it('an HTTP/1.1 request with an empty Host is 400 HOST_HEADER_REQUIRED in the envelope', async () => {
    const connection = await openRaw(t.baseUrl);
    connection.socket.write('GET /health HTTP/1.1\r\nHost: \r\nConnection: close\r\n\r\n');
    expectErrorEnvelope(parseRawResponse((await connection.closed).text), 'HOST_HEADER_REQUIRED');
  });

  it('a request with two Authorization headers is refused as a malformed credential, never served', async () => {
    const { jwt } = await mintAndLogin(t);
    const auth = `Authorization: Bearer ${jwt}\r\n`;
    // Not half-closed: Node drops a pending answer when the client ends its side first.
    const send = async (headers: string) => {
      const connection = await openRaw(t.baseUrl);
      connection.socket.write(
        `GET /api/me/identity HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`,
      );
      return parseRawResponse((await connection.closed).text);
    };
    expect((await send(auth)).status).toBe(200);
    const twice = await send(auth + auth);
    expect(twice.status).toBe(401);
    expectErrorEnvelope(twice, 'INVALIDATED_TOKEN');
  });

  it('an HTTP/1.0 request without Host is served', async () => {
    // Not half-closed: Node drops a pending answer when the client ends its side first.
    const connection = await openRaw(t.baseUrl);
    connection.socket.write('GET /health HTTP/1.0\r\n\r\n');
    const res = parseRawResponse((await connection.closed).text);
    expect(res.status).toBe(200);
  });

  it('an Expect other than 100-continue is 417 EXPECTATION_FAILED in the envelope', async () => {
    const res = await rawRequest(
      t.baseUrl,
      'POST /api/identity/verify HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
    );
    expectErrorEnvelope(res, 'EXPECTATION_FAILED');
  });

  // From a mutation probe: the test above asks for the close itself, so a 417 that kept the connection
  // open passed; its body, never read, would then be parsed as the next request.
  it('a 417 closes its connection though the client asked for none', async () => {
    const connection = await openRaw(t.baseUrl);
    connection.socket.write(
      'POST /api/identity/verify HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n',
    );
    const { text } = await connection.closed;
    const res = parseRawResponse(text);
    expectErrorEnvelope(res, 'EXPECTATION_FAILED');
    expect(res.headers.get('connection')).toBe('close');
  });

  it('a CONNECT is 405 METHOD_NOT_ALLOWED in the envelope, not a dropped socket', async () => {
    // Found by a hostile probe: with no `connect` listener Node closed the socket without a word.
    const res = await rawRequest(
      t.baseUrl,
      'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
    );
    expectErrorEnvelope(res, 'METHOD_NOT_ALLOWED');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect((await call(t, '/health')).status).toBe(200);
  });

  it('a CONNECT 405 carries Allow, as every other 405 (RFC 9110 §15.5.6: the origin server MUST send it)', async () => {
    // Found by the schema-driven fuzz: `CONNECT /health` (and `CONNECT host:443`) got 405 without Allow,
    // while docs/http.md promises "wrong method: 405 METHOD_NOT_ALLOWED with Allow".
    const res = await rawRequest(t.baseUrl, 'CONNECT /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const body = expectErrorEnvelope(res, 'METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    // The same details as the router's 405 (`PUT /health`).
    expect(body.error.details).toEqual({ allowed: ['GET', 'HEAD'] });
    // An authority-form target names no resource of this server: an empty Allow ("no method").
    const proxy = await rawRequest(
      t.baseUrl,
      'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
    );
    expectErrorEnvelope(proxy, 'METHOD_NOT_ALLOWED');
    expect(proxy.headers.get('allow')).toBe('');
  });

  it('a malformed request line is 400 VALIDATION_FAILED in the envelope', async () => {
    const res = await rawRequest(t.baseUrl, 'GET /health HTTP/1.1 extra\r\nHost: x\r\n\r\n');
    expectErrorEnvelope(res, 'VALIDATION_FAILED');
  });
});

describe('framework errors and requests without Host are metered', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ STORE: 'memory', RATE_LIMIT_CAPACITY: '3', RATE_LIMIT_REFILL_PER_MINUTE: '1' });
  });
  afterAll(() => t.close());

  it('bad URLs use up the bucket, then 429 in the envelope with Retry-After', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await call(t, '/api/identity/token/%ff/public')).status);
    expect(statuses).toEqual([400, 400, 400]);
    const limited = await call(t, '/api/identity/token/%ff/public');
    expectErrorEnvelope(limited, 'RATE_LIMIT_EXCEEDED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const noHost = await rawRequest(t.baseUrl, 'GET /health HTTP/1.1\r\n\r\n');
    expectErrorEnvelope(noHost, 'RATE_LIMIT_EXCEEDED');
  });

  // From a mutation probe: the 429 of a bad URL was only read over connections the client closed, so one
  // that kept a refused client's keep-alive socket open passed.
  it('the 429 of a bad URL closes its keep-alive connection', async () => {
    while ((await call(t, '/api/identity/token/%ff/public')).status !== 429) {
      // use up the bucket
    }
    const connection = await openRaw(t.baseUrl);
    connection.socket.write('GET /api/identity/token/%ff/public HTTP/1.1\r\nHost: x\r\n\r\n');
    const res = parseRawResponse(await waitFor(connection, (s) => s.includes('\r\n\r\n'), 2000));
    expectErrorEnvelope(res, 'RATE_LIMIT_EXCEEDED');
    expect(res.headers.get('connection')).toBe('close');
    const closed = await Promise.race([connection.closed, sleep(800).then(() => null)]);
    connection.socket.destroy();
    expect(closed).not.toBeNull();
  });
});

// A probe: behind a trusted proxy, bad URLs were charged to the proxy's own address, so one client's
// bad URLs made every client's 429 (and the proxy host's health probe's).
describe('framework errors behind a trusted proxy are metered per client', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      STORE: 'memory',
      RATE_LIMIT_CAPACITY: '3',
      RATE_LIMIT_REFILL_PER_MINUTE: '1',
      TRUSTED_PROXIES: '127.0.0.1',
    });
  });
  afterAll(() => t.close());

  it("one client's bad URLs use up its own bucket, not another client's nor the proxy's", async () => {
    const from = (client: string) => ({ headers: { 'x-forwarded-for': client } });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await call(t, '/api/identity/token/%ff/public', from('203.0.113.7'))).status);
    expect(statuses).toEqual([400, 400, 400, 429]);
    expectErrorEnvelope(await call(t, '/api/identity/token/%ff/public', from('198.51.100.9')), 'INVALID_URL');
    expect((await call(t, '/health')).status).toBe(200);
  });
});

describe('slow requests and refused sockets', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      STORE: 'memory',
      HTTP_REQUEST_TIMEOUT_MS: '1000',
      HTTP_HEADERS_TIMEOUT_MS: '1000',
      RATE_LIMIT_CAPACITY: '20',
      RATE_LIMIT_REFILL_PER_MINUTE: '1',
    });
  });
  afterAll(() => t.close());

  it('a body trickled a byte at a time is answered 408 REQUEST_TIMEOUT and its socket closed', async () => {
    const connection = await openRaw(t.baseUrl);
    const started = Date.now();
    connection.socket.write(
      'POST /api/identity/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
    );
    const trickle = setInterval(() => {
      if (!connection.socket.destroyed && connection.socket.writable) connection.socket.write(' ');
    }, 100);
    try {
      const { text, atMs } = await connection.closed;
      expect(atMs - started).toBeLessThan(3000);
      expectErrorEnvelope(parseRawResponse(text), 'REQUEST_TIMEOUT');
    } finally {
      clearInterval(trickle);
    }
  });

  it('headers trickled a byte at a time are answered 408 too', async () => {
    const connection = await openRaw(t.baseUrl);
    const started = Date.now();
    connection.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
    const trickle = setInterval(() => {
      if (!connection.socket.destroyed && connection.socket.writable) connection.socket.write('X-A: b\r\n');
    }, 100);
    try {
      const { text, atMs } = await connection.closed;
      expect(atMs - started).toBeLessThan(3000);
      expectErrorEnvelope(parseRawResponse(text), 'REQUEST_TIMEOUT');
    } finally {
      clearInterval(trickle);
    }
  });

  it('a 429 closes its socket, even while the body is still arriving', async () => {
    // Use up the bucket.
    while ((await call(t, '/health')).status !== 429) {
      // keep going until refused
    }
    const connection = await openRaw(t.baseUrl);
    connection.socket.write(
      'POST /api/identity/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
    );
    const text = await waitFor(connection, (s) => s.includes('\r\n\r\n'), 2000);
    const res = parseRawResponse(text);
    expect(res.headers.get('connection')).toBe('close');
    const closedAt = (await Promise.race([connection.closed, sleep(800).then(() => null)]))?.atMs;
    expect(closedAt).toBeDefined();
    expect(res.status).toBe(429);
  });
});
