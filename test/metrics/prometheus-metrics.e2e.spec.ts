/**
 * The operators' metrics over real HTTP against the real app: the Prometheus text (parsed by an
 * independent parser) carries the request-duration histogram per route pattern, method and status,
 * the counters (verify outcomes, logins, chain reads and cache hits, store errors) and the process
 * metrics; `GET /metrics` answers a scraper holding METRICS_TOKEN, refuses any other credential with
 * 401 in the envelope, and does not exist without the variable.
 */
import { openRawSession, probe } from '../mcp/support/mcp-probe.js';
import { contractClient } from '../support/contract-fetch.js';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import { histogramSeries, parsePrometheusText, type PromFamily } from '../support/prometheus-text.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const TOKEN = 'scrape-token-0123456789abcdefghijklmnopqrstuvwxyz';

function family(families: Map<string, PromFamily>, name: string): PromFamily {
  const found = families.get(name);
  if (!found) throw new Error(`no metric family ${name}`);
  return found;
}

const matches = (labels: Readonly<Record<string, string>>, wanted: Record<string, string>) =>
  Object.entries(wanted).every(([k, v]) => labels[k] === v);

function sample(f: PromFamily, labels: Record<string, string>): number | undefined {
  return f.samples.find((s) => matches(s.labels, labels))?.value;
}

function series(f: PromFamily, labels: Record<string, string>) {
  return histogramSeries(f).find((s) => matches(s.labels, labels));
}

describe('GET /metrics with METRICS_TOKEN set', () => {
  let app: TestApp;
  let request: ReturnType<typeof contractClient>;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory', METRICS_TOKEN: TOKEN });
    request = contractClient(app.baseUrl);
  });
  afterAll(() => app.close());

  const scrape = async () => {
    const res = await request('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    return { text: res.text, families: parsePrometheusText(res.text) };
  };

  it('serves parseable Prometheus text with the duration histogram per route pattern, method and status', async () => {
    for (let i = 0; i < 5; i++) expect((await fetch(`${app.baseUrl}/health`)).status).toBe(200);
    // A token id no passport holds: the route's pattern is the label, whatever the id.
    expect((await fetch(`${app.baseUrl}/api/identity/token/abcdefghijkl/public`)).status).toBe(404);
    for (let i = 0; i < 3; i++) expect((await fetch(`${app.baseUrl}/no/such/path/${i}`)).status).toBe(404);
    const { text, families } = await scrape();

    const histogram = family(families, 'passport_http_request_duration_seconds');
    expect(histogram.type).toBe('histogram');
    // (The reader checked every series: cumulative buckets ending at +Inf = _count.)
    const health = series(histogram, { route: '/health', method: 'GET', status: '200' });
    expect(health).toBeDefined();
    expect(Object.keys(health!.labels).sort()).toEqual(['method', 'route', 'status']);
    expect(health!.count).toBeGreaterThanOrEqual(5);
    expect(health!.sum).toBeGreaterThan(0);
    // Bounds below 1 ms: a fast route's requests are told apart, not all in the first bucket.
    expect(health!.buckets.map(([le]) => le).slice(0, 3)).toEqual([0.00025, 0.0005, 0.001]);

    // Route patterns, never raw paths: parameters and unknown paths do not grow the label set.
    expect(
      series(histogram, { route: '/api/identity/token/:tokenId/public', method: 'GET', status: '404' }),
    ).toBeDefined();
    const unmatched = series(histogram, { route: '<unmatched>', method: 'GET', status: '404' });
    expect(unmatched!.count).toBeGreaterThanOrEqual(3);
    expect(text).not.toContain('/no/such/path');
  });

  it('passport_mcp_sessions_open counts the sessioned MCP sessions open on the instance', async () => {
    const gauge = async () => sample(family((await scrape()).families, 'passport_mcp_sessions_open'), {});
    const before = await gauge();
    const ids = [await openRawSession(app.baseUrl), await openRawSession(app.baseUrl)];
    expect(await gauge()).toBe(before! + 2);
    await probe(app.baseUrl, { method: 'DELETE', headers: { 'mcp-session-id': ids[0]! } });
    expect(await gauge()).toBe(before! + 1);
    await probe(app.baseUrl, { method: 'DELETE', headers: { 'mcp-session-id': ids[1]! } });
    expect(await gauge()).toBe(before);
  });

  // A probe: the answers Fastify's framework errors get were counted in the JSON metrics only.
  it('counts the answers to URLs refused before routing (400 INVALID_URL, 414 URI_TOO_LONG) in the histogram', async () => {
    expect((await fetch(`${app.baseUrl}/api/identity/token/%ff/public`)).status).toBe(400);
    expect((await fetch(`${app.baseUrl}/api/identity/token/${'a'.repeat(500)}/public`)).status).toBe(414);
    const histogram = family((await scrape()).families, 'passport_http_request_duration_seconds');
    expect(series(histogram, { route: '<unmatched>', method: 'GET', status: '400' })?.count).toBe(1);
    expect(series(histogram, { route: '<unmatched>', method: 'GET', status: '414' })?.count).toBe(1);
  });

  it('carries the counters and the default process metrics', async () => {
    // A rejected login and an invalid HOLA line move their counters.
    const login = await fetch(`${app.baseUrl}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ passportid: 'abcdefghijkl' }),
    });
    expect(login.status).toBe(400);
    const verify = await fetch(`${app.baseUrl}/api/identity/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hola: 'not a hola line' }),
    });
    expect(verify.status).toBe(400);
    const { families } = await scrape();

    const logins = family(families, 'passport_logins_total');
    expect(logins.type).toBe('counter');
    expect(sample(logins, { outcome: 'rejected' })).toBeGreaterThanOrEqual(1);
    expect(sample(logins, { outcome: 'success' })).toBe(0);
    const verifyTotal = family(families, 'passport_verify_total');
    expect(verifyTotal.type).toBe('counter');
    expect(sample(verifyTotal, { outcome: 'invalid' })).toBeGreaterThanOrEqual(1);
    for (const name of [
      'passport_chain_reads_total',
      'passport_chain_cache_hits_total',
      'passport_requests_total',
    ]) {
      expect(family(families, name).type).toBe('counter');
    }
    expect(sample(family(families, 'passport_chain_reads_total'), {})).toBeGreaterThan(0);
    expect(sample(family(families, 'passport_requests_total'), {})).toBeGreaterThan(5);
    expect(family(families, 'passport_store_errors_total').type).toBe('counter');
    expect(family(families, 'passport_sessions_active').type).toBe('gauge');
    // prom-client's default metrics: event-loop lag, heap, GC, CPU.
    expect(family(families, 'nodejs_eventloop_lag_seconds').type).toBe('gauge');
    expect(sample(family(families, 'nodejs_heap_size_used_bytes'), {})).toBeGreaterThan(0);
    expect(family(families, 'nodejs_gc_duration_seconds').type).toBe('histogram');
    expect(family(families, 'process_cpu_user_seconds_total').type).toBe('counter');
    // Only prom-client's event-loop figures may be NaN (before their first measurement); ours never.
    for (const f of families.values())
      if (f.name.startsWith('passport_'))
        for (const s of f.samples) expect(Number.isNaN(s.value)).toBe(false);
  });

  it.each([
    ['no Authorization header', undefined],
    ['a wrong token', `Bearer ${TOKEN.slice(0, -1)}x`],
    ['a prefix of the token', `Bearer ${TOKEN.slice(0, 10)}`],
    ['the token with a suffix', `Bearer ${TOKEN}x`],
    ['another scheme', `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`],
    ['the token without a scheme', TOKEN],
    ['an empty bearer', 'Bearer '],
    // From a mutation probe: the scheme must open the header (an unanchored reading passed).
    ['the right token after another word', `Token Bearer ${TOKEN}`],
  ])('%s → 401 INVALID_CREDENTIALS in the envelope, and no figures', async (_label, authorization) => {
    const res = await request('/metrics', { headers: authorization === undefined ? {} : { authorization } });
    const refused = expectErrorEnvelope(res, 'INVALID_CREDENTIALS');
    expect(res.text).not.toContain('passport_http_request_duration_seconds');
    // What to send, in details (a new admin's walkthrough: the bare code did not say); nothing of the token.
    expect(refused.error.details).toEqual({
      hint: "send Authorization: Bearer <METRICS_TOKEN>, the server's METRICS_TOKEN (not a passport's JWT)",
    });
    expect(res.text).not.toContain(TOKEN.slice(0, 10));
    // RFC 6750 §3.1, as docs/http.md says: invalid_token when a Bearer token was refused (a review found
    // it missing here).
    expect(res.headers.get('www-authenticate')).toBe(
      /^Bearer\s+\S/i.test(authorization ?? '')
        ? 'Bearer realm="passport", error="invalid_token"'
        : 'Bearer realm="passport"',
    );
  });

  it('accepts the scheme in any case', async () => {
    const res = await fetch(`${app.baseUrl}/metrics`, { headers: { authorization: `bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
  });

  it('a refused scrape is itself counted (status 401 on /metrics)', async () => {
    await request('/metrics', { headers: { authorization: 'Bearer nope' } });
    const { families } = await scrape();
    const refused = series(family(families, 'passport_http_request_duration_seconds'), {
      route: '/metrics',
      method: 'GET',
      status: '401',
    });
    expect(refused!.count).toBeGreaterThanOrEqual(1);
  });
});

describe('GET /metrics without METRICS_TOKEN', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
  });
  afterAll(() => app.close());

  it('is an unknown path: 404 ENDPOINT_NOT_FOUND for every method, whatever the credential', async () => {
    const request = contractClient(app.baseUrl);
    const inits: RequestInit[] = [
      { headers: { authorization: `Bearer ${TOKEN}` } },
      { headers: {} },
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
    ];
    for (const init of inits) {
      const res = await request('/metrics', { ...init, contract: false });
      expectErrorEnvelope(res, 'ENDPOINT_NOT_FOUND');
    }
    const doc = (await (await fetch(`${app.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(doc.paths['/metrics']).toBeUndefined();
  });
});
