/**
 * A POST to /mcp that serves nothing must not spend the tool-call rate (docs/protocol.md §7: "A batch
 * that is not served costs its first message's token only ... the tool-call rate takes a batch's
 * reads the same way"). A probe: six batches of 16 reads refused whole by the SDK's transport (406 for
 * an Accept without text/event-stream, 400 for an unsupported MCP-Protocol-Version) or by the body
 * classifier (a member that is not JSON-RPC) each took 16 tool-call tokens, and the corrected batch
 * was then refused 429 "needs 16, 4 are available".
 */
import { openRawSession, probe } from './support/mcp-probe.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const reads = (from: number) =>
  Array.from({ length: 16 }, (_, i) => ({
    jsonrpc: '2.0',
    id: from + i,
    method: 'resources/read',
    params: { uri: 'doc:discovery' },
  }));

describe('/mcp: a batch refused whole spends no tool calls', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp({ STORE: 'memory' });
  });
  afterEach(async () => t.close());

  it.each([
    ['an Accept without text/event-stream (406)', { accept: 'application/json' }, (b: unknown[]) => b, 406],
    [
      'an unsupported MCP-Protocol-Version (400)',
      { 'mcp-protocol-version': '2024-01-01' },
      (b: unknown[]) => b,
      400,
    ],
    [
      'a member that is not JSON-RPC (400)',
      {},
      (b: unknown[]) => [...b, { jsonrpc: '2.0', id: 999, method: 5 }],
      400,
    ],
  ])('%s: the corrected batch is served afterwards', async (_name, extraHeaders, shape, status) => {
    const id = await openRawSession(t.baseUrl);
    const headers = { 'mcp-session-id': id, 'mcp-protocol-version': '2025-03-26' };
    for (let i = 0; i < 7; i++) {
      const refused = await probe(t.baseUrl, {
        headers: { ...headers, ...extraHeaders },
        body: shape(reads(1 + 16 * i)),
      });
      expect(refused.status).toBe(status);
    }
    const served = await probe(t.baseUrl, { headers, body: reads(500) });
    expect(served.status).toBe(200);
  });
});

/**
 * MCP 2025-06-18 and 2025-11-25, Transports, Protocol Version Header: "If the server receives a request
 * with an invalid or unsupported MCP-Protocol-Version, it MUST respond with 400 Bad Request." A probe:
 * on a live session, a request whose params /mcp checks before the SDK (an unknown tool, a cursor on
 * tools/list, a uri that is no string) was answered HTTP 200 -32602 instead; with an Accept lacking
 * text/event-stream, 200 instead of 406.
 */
describe('/mcp: the transport refusal comes before the surface checks', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ STORE: 'memory' });
  });
  afterAll(async () => t.close());

  const bodies = [
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'zzz', arguments: {} } },
    { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { cursor: 'x' } },
    { jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 1 } },
  ];

  it.each(bodies.map((body) => [body.method, body] as const))(
    '%s with an unsupported MCP-Protocol-Version: 400',
    async (_method, body) => {
      const id = await openRawSession(t.baseUrl);
      const reply = await probe(t.baseUrl, {
        headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2024-01-01' },
        body,
      });
      expect(reply.status).toBe(400);
    },
  );

  it.each(bodies.map((body) => [body.method, body] as const))(
    '%s with Accept: application/json only: 406',
    async (_method, body) => {
      const id = await openRawSession(t.baseUrl);
      const reply = await probe(t.baseUrl, {
        headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25', accept: 'application/json' },
        body,
      });
      expect(reply.status).toBe(406);
    },
  );
});
