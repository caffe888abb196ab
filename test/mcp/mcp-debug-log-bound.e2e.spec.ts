/**
 * A probe (operators' logs): at LOG_LEVEL=debug every /mcp request is logged with its JSON-RPC method
 * (`rpcMethod`), copied from the client's body whole. A client on a session sends a method name of
 * 60 000 characters and the log line carries all of it (one such line per request, up to the 64 KiB
 * body bound), where every other client-supplied field that reaches a log line is bounded (request ids
 * at 128 characters, a query parameter's name at 64, a revoke reason at 200).
 */
import { startTestApp, type TestApp } from '../support/test-app.js';

type LogLine = Record<string, unknown>;

describe('/mcp debug log line', () => {
  let app: TestApp;
  const lines: LogLine[] = [];
  beforeAll(async () => {
    app = await startTestApp(
      { STORE: 'memory', LOG_LEVEL: 'debug' },
      { logDestination: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) } },
    );
  });
  afterAll(() => app.close());

  it('bounds the client-chosen rpcMethod it logs', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(`${app.baseUrl}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'probe', version: '1' },
        },
      }),
    });
    expect(init.status).toBe(200);
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.text();
    const method = `fake/${'X'.repeat(60_000)}`;
    const res = await fetch(`${app.baseUrl}/mcp`, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method }),
    });
    expect(res.status).toBe(200);
    await res.text();
    const logged = lines.filter((l) => l.msg === 'mcp request').map((l) => String(l.rpcMethod ?? ''));
    expect(logged.length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...logged.map((m) => m.length))).toBeLessThanOrEqual(256);
  });
});
