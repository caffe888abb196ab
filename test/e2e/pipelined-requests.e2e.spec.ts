/**
 * One connection's requests in flight are bounded, and the large fixed documents are serialised once.
 * A probe pipelined 1,500 requests for /openapi.json on one socket and never read: every answer was a new
 * ~320 KB string held until the client read, and a 512 MB heap ran out of memory. Over real HTTP against
 * the real app.
 */
import { Agent, request as httpRequest } from 'node:http';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import { openRaw, parseRawResponses } from '../support/raw-http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const BOUND = 32;
const pipelined = (path: string, count: number) =>
  `GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`.repeat(count);

/** One request on `agent` (keep-alive, one socket): status, body and the local port it went out from. */
function onAgent(
  t: TestApp,
  agent: Agent,
  init: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string; localPort: number }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${t.baseUrl}${init.path}`,
      { agent, method: init.method ?? 'GET', headers: init.headers },
      (res) => {
        const localPort = res.socket.localPort ?? 0;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, localPort }));
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

describe('requests in flight on one connection', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ STORE: 'memory' });
  });
  afterAll(() => t.close());

  it(`answers the first ${BOUND} of a pipelined burst, then 429 pipelined_requests and closes the connection`, async () => {
    const connection = await openRaw(t.baseUrl);
    connection.socket.write(pipelined('/health', BOUND + 20));
    const { text } = await connection.closed;
    const responses = parseRawResponses(text);
    expect(responses.slice(0, BOUND).map((r) => r.status)).toEqual(Array(BOUND).fill(200));
    const refused = responses[BOUND];
    const error = expectErrorEnvelope(refused, 'RATE_LIMIT_EXCEEDED');
    expect(error.error.details).toEqual({
      retryAfterSeconds: 1,
      reason: 'pipelined_requests',
      maxRequestsInFlight: BOUND,
    });
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('connection')).toBe('close');
    // Nothing is answered after the refusal that closed the connection.
    expect(responses).toHaveLength(BOUND + 1);
  });

  it('a pipelined burst within the bound is answered whole, and the connection stays open', async () => {
    const connection = await openRaw(t.baseUrl);
    connection.socket.write(pipelined('/health', BOUND));
    const deadline = Date.now() + 10_000;
    while (parseRawResponses(connection.received()).length < BOUND && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    expect(parseRawResponses(connection.received()).map((r) => r.status)).toEqual(Array(BOUND).fill(200));
    // Answered requests no longer count: the next burst on the same connection is answered too.
    connection.socket.write(pipelined('/health', BOUND));
    while (parseRawResponses(connection.received()).length < 2 * BOUND && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    expect(parseRawResponses(connection.received()).map((r) => r.status)).toEqual(Array(2 * BOUND).fill(200));
    connection.socket.destroy();
  });

  it('a client that waits for each answer is never refused, MCP answers (written by the SDK) included', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const ports = new Set<number>();
      for (let i = 0; i < 3 * BOUND; i++) {
        const answer =
          i % 2 === 0
            ? await onAgent(t, agent, { path: '/health' })
            : await onAgent(t, agent, {
                method: 'POST',
                path: '/mcp',
                headers: {
                  'content-type': 'application/json',
                  accept: 'application/json, text/event-stream',
                },
                body: JSON.stringify({
                  jsonrpc: '2.0',
                  id: 1,
                  method: 'initialize',
                  params: {
                    protocolVersion: '2025-11-25',
                    capabilities: {},
                    clientInfo: { name: 'p', version: '0' },
                  },
                }),
              });
        expect(answer.status).toBe(200);
        ports.add(answer.localPort);
      }
      expect(ports.size).toBe(1); // one connection throughout
    } finally {
      agent.destroy();
    }
  });

  it('serves the OpenAPI document as the bytes of its JSON, the same on every route and every request', async () => {
    const first = await fetch(`${t.baseUrl}/openapi.json`);
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const bytes = await first.text();
    expect(JSON.stringify(JSON.parse(bytes))).toBe(bytes);
    for (const path of [
      '/openapi.json',
      '/swagger.json',
      '/api/mcp/schema',
      '/api/mcp/resource/openapi:swagger',
    ]) {
      const res = await fetch(`${t.baseUrl}${path}`);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await res.text()).toBe(bytes);
    }
    // Pipelined without reading in between: every answer within the bound is the same document.
    const connection = await openRaw(t.baseUrl);
    connection.socket.write(pipelined('/openapi.json', 8));
    const deadline = Date.now() + 10_000;
    while (parseRawResponses(connection.received()).length < 8 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    const answers = parseRawResponses(connection.received());
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
    for (const answer of answers) expect(JSON.stringify(answer.body)).toBe(bytes);
    connection.socket.destroy();
  });
});
