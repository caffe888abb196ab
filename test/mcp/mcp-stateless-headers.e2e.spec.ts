/**
 * A stateless (2026-07-28) request without one of the standard headers the revision requires
 * (`MCP-Protocol-Version`, `Mcp-Method`, and `Mcp-Name` where the body names a tool or resource) is
 * refused by the SDK with 400 -32020. It must be so before this server's own checks and its tool-call
 * bucket: not answered 200 "Unknown tool" as if it were served, and not charged to the address's 100
 * tool calls a minute. Raw HTTP against the started app.
 */
import { probe } from './support/mcp-probe.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const STATELESS = '2026-07-28';

const envelope = {
  'io.modelcontextprotocol/protocolVersion': STATELESS,
  'io.modelcontextprotocol/clientInfo': { name: 'headers-probe', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

const toolCall = (id: number, name: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: { uri: 'doc:discovery' }, _meta: envelope },
});

const ALL_HEADERS = (name: string): Record<string, string> => ({
  'mcp-protocol-version': STATELESS,
  'mcp-method': 'tools/call',
  'mcp-name': name,
});

/** The standard headers of a tools/call of `name` without the one named. */
const without = (missing: string, name: string): Record<string, string> =>
  Object.fromEntries(Object.entries(ALL_HEADERS(name)).filter(([key]) => key !== missing));

describe('stateless MCP requests without a required standard header', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  // Found by a hostile-holder probe: without Mcp-Method, a tools/call of an unknown tool was answered
  // 200 -32602 "Unknown tool" (this server's own check ran first); with a known tool, the SDK's 400.
  it.each(['mcp-protocol-version', 'mcp-method', 'mcp-name'])(
    'without %s, a tools/call of an unknown tool is the SDK\'s 400 -32020, not 200 "Unknown tool"',
    async (missing) => {
      const r = await probe(t.baseUrl, { headers: without(missing, 'nope'), body: toolCall(4, 'nope') });
      expect([missing, r.status]).toEqual([missing, 400]);
      expect(r.body).toMatchObject({ jsonrpc: '2.0', id: 4, error: { code: -32020 } });
    },
  );

  // Found by the same probe: 100 such refused calls spent the address's tool-call minute, and its next
  // well-formed call was answered 429.
  it('refused requests spend none of the tool-call bucket: a well-formed call after 110 of them is served', async () => {
    for (let i = 0; i < 110; i++) {
      const missing = ['mcp-protocol-version', 'mcp-method', 'mcp-name'][i % 3];
      const r = await probe(t.baseUrl, {
        headers: without(missing, 'get_resource'),
        body: toolCall(i, 'get_resource'),
      });
      expect([i, r.status]).toEqual([i, 400]);
    }
    const served = await probe(t.baseUrl, {
      headers: ALL_HEADERS('get_resource'),
      body: toolCall(200, 'get_resource'),
    });
    expect(served.status).toBe(200);
  });
});
