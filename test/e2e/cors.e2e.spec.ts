/**
 * CORS over real HTTP (CORS_ORIGINS). Found by a probe: the core library is documented for browsers,
 * yet a page on another origin could not call the API at all (no CORS headers; preflights 405), and a
 * proxy adding CORS would have to know to expose New-Token, or a page's session ends with its first
 * token. Off by default: no CORS headers, preflights 405 as before.
 */
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import { mintAndLogin } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { INITIALIZE, MCP_HEADERS } from '../mcp/support/mcp-probe.js';

const APP = 'http://app.example';
const preflight = (origin: string, method = 'GET', headers = 'authorization') => ({
  method: 'OPTIONS',
  headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
});

describe('CORS_ORIGINS set', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ STORE: 'memory', CORS_ORIGINS: `${APP},http://localhost:5173` });
  });
  afterAll(() => t.close());

  it('a preflight from an allowed origin: 204 naming the origin, Authorization allowed, cached 10 min', async () => {
    const res = await fetch(`${t.baseUrl}/api/me/identity`, preflight(APP));
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
    expect(res.headers.get('access-control-allow-headers')).toMatch(/(^|, )Authorization(,|$)/);
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, HEAD, POST, DELETE');
    expect(res.headers.get('access-control-max-age')).toBe('600');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('an authorized call from an allowed origin names it and exposes New-Token and X-Request-Id', async () => {
    const { jwt } = await mintAndLogin(t);
    const res = await fetch(`${t.baseUrl}/api/me/identity`, {
      headers: { origin: APP, authorization: `Bearer ${jwt}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
    expect(res.headers.get('access-control-expose-headers')?.split(', ')).toEqual(
      // WWW-Authenticate from a mutation probe: dropping it from the list passed every test, though a
      // page reads the refused token's error="invalid_token" from it.
      expect.arrayContaining(['New-Token', 'X-Request-Id', 'Retry-After', 'WWW-Authenticate']),
    );
    expect(res.headers.get('vary')).toMatch(/Origin/);
  });

  it('another origin gets no CORS header, and its preflight is the 405 of any OPTIONS', async () => {
    const res = await fetch(`${t.baseUrl}/health`, { headers: { origin: 'http://evil.example' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const refused = await fetch(`${t.baseUrl}/api/me/identity`, preflight('http://evil.example'));
    expect(refused.status).toBe(405);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    expectErrorEnvelope(
      { status: refused.status, headers: refused.headers, body: await refused.json() },
      'METHOD_NOT_ALLOWED',
    );
  });

  it('an OPTIONS that is no preflight is answered in the envelope, and Allow never lists OPTIONS', async () => {
    const res = await fetch(`${t.baseUrl}/health`, { method: 'OPTIONS', headers: { origin: APP } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    const body = (await res.json()) as { error: { code: string } };
    expect(body.error.code).toBe('METHOD_NOT_ALLOWED');
    const put = await fetch(`${t.baseUrl}/health`, { method: 'PUT', headers: { origin: APP } });
    expect(put.headers.get('allow')).toBe('GET, HEAD');
  });

  it('/mcp accepts the allowed origin (its Origin check) and still refuses others', async () => {
    const allowed = await fetch(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, origin: APP },
      body: JSON.stringify(INITIALIZE),
    });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(APP);
    await allowed.text();
    const refused = await fetch(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, origin: 'http://evil.example' },
      body: JSON.stringify(INITIALIZE),
    });
    expect(refused.status).toBe(403);
  });
});

// From a mutation probe: no test set CORS_ORIGINS=*, so echoing each origin back (a response that then
// differs per origin, where `*` is one answer for all) passed.
describe('CORS_ORIGINS=*', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ STORE: 'memory', CORS_ORIGINS: '*' });
  });
  afterAll(() => t.close());

  it('any origin is answered with the wildcard, in a preflight and a call alike', async () => {
    const pre = await fetch(`${t.baseUrl}/api/me/identity`, preflight('http://any.example'));
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    const res = await fetch(`${t.baseUrl}/health`, { headers: { origin: 'http://other.example' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });
});

describe('CORS_ORIGINS unset (the default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ STORE: 'memory' });
  });
  afterAll(() => t.close());

  it('no CORS header for any origin; a preflight is 405', async () => {
    const res = await fetch(`${t.baseUrl}/health`, { headers: { origin: APP } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('vary')).toBeNull();
    const pre = await fetch(`${t.baseUrl}/api/me/identity`, preflight(APP));
    expect(pre.status).toBe(405);
    expect(pre.headers.get('allow')).toBe('GET, HEAD');
  });
});
