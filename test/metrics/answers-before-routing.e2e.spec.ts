/**
 * Answers the HTTP server writes before any route (a malformed request, headers over the limit, an
 * unknown `Expect`, a CONNECT) are counted in the metrics, as the unmatched route. An admin probe sent
 * six such requests and `passport_requests_total` moved by one (its own scrape): a flood of them was
 * invisible to an operator watching `/metrics`.
 */
import { connect } from 'node:net';
import { contractClient } from '../support/contract-fetch.js';
import { histogramSeries, parsePrometheusText } from '../support/prometheus-text.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const TOKEN = 'scrape-token-0123456789abcdefghijklmnopqrstuvwxyz';

/** Sends `raw` on a new connection; the status line's code of the answer, once the server closes. */
function sendRaw(baseUrl: string, raw: string): Promise<number> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.write(raw));
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)));
  });
}

describe('answers written before routing, in /metrics', () => {
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
    const families = parsePrometheusText(res.text);
    const series = (method: string, status: string) =>
      histogramSeries(families.get('passport_http_request_duration_seconds')!).find(
        (s) => s.labels.route === '<unmatched>' && s.labels.method === method && s.labels.status === status,
      );
    const count = (method: string, status: string) => series(method, status)?.count ?? 0;
    const sum = (method: string, status: string) => series(method, status)?.sum ?? 0;
    const requests = families.get('passport_requests_total')!.samples[0]!.value;
    return { count, sum, requests };
  };

  it('counts a malformed request, oversized headers, an unknown Expect and a CONNECT', async () => {
    await scrape(); // the contract client's first call also reads the OpenAPI document
    const before = await scrape();
    expect(await sendRaw(app.baseUrl, 'FOO / HTTP/1.1\r\nHost: x\r\n\r\n')).toBe(400);
    expect(
      await sendRaw(app.baseUrl, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`),
    ).toBe(400);
    expect(await sendRaw(app.baseUrl, 'GET /health HTTP/1.1\r\nHost: x\r\nExpect: nope\r\n\r\n')).toBe(417);
    expect(
      await sendRaw(app.baseUrl, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'),
    ).toBe(405);
    const after = await scrape();
    expect(after.count('OTHER', '400') - before.count('OTHER', '400')).toBe(2);
    expect(after.count('GET', '417') - before.count('GET', '417')).toBe(1);
    expect(after.count('OTHER', '405') - before.count('OTHER', '405')).toBe(1);
    // With duration 0: no request was read to time (a mutation probe gave them 5 ms, and nothing failed).
    expect(after.sum('OTHER', '400')).toBe(before.sum('OTHER', '400'));
    expect(after.sum('GET', '417')).toBe(before.sum('GET', '417'));
    // The four, and the scrape `before` itself.
    expect(after.requests - before.requests).toBe(5);
  });
  it('review: pipelined requests with an unknown Expect are answered once (Connection: close) and counted once', async () => {
    await scrape();
    const before = await scrape();
    const one = 'POST /api/verify HTTP/1.1\r\nHost: x\r\nExpect: nope\r\nContent-Length: 0\r\n\r\n';
    // One 417 reaches the client and the connection closes; the requests behind it get no answer.
    expect(await sendRaw(app.baseUrl, one.repeat(50))).toBe(417);
    const after = await scrape();
    expect(after.count('POST', '417') - before.count('POST', '417')).toBe(1);
    expect(after.requests - before.requests).toBe(2);
  });
});
