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

  // A review of the fix above: the SDK's standard-header rung also refuses an Mcp-Name that disagrees with
  // the body's name (decoded from its Base64 form) or carries an invalid Base64 sentinel (400 -32020), and
  // those still met this server's checks and tool-call bucket first (200 "Unknown tool"; 100 such calls
  // made the next good one 429), though protocol.md says a disagreeing header is refused before them.
  it.each([
    ['names another tool', 'get_resource'],
    ['names the tool in Base64 of another name', '=?base64?Z2V0X3Jlc291cmNl?='],
    ['carries an invalid Base64 sentinel', '=?base64?not*base64?='],
  ])('an Mcp-Name that %s is the SDK\'s 400 -32020, not 200 "Unknown tool"', async (_what, mcpName) => {
    const r = await probe(t.baseUrl, {
      headers: { ...ALL_HEADERS('nope'), 'mcp-name': mcpName },
      body: toolCall(5, 'nope'),
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ jsonrpc: '2.0', id: 5, error: { code: -32020 } });
  });

  it('a known tool named in Base64 as the body names it is served (the sentinel decoded, not refused)', async () => {
    const r = await probe(t.baseUrl, {
      headers: { ...ALL_HEADERS('get_resource'), 'mcp-name': '=?base64?Z2V0X3Jlc291cmNl?=' },
      body: toolCall(6, 'get_resource'),
    });
    expect(r.status).toBe(200);
  });
});

// On an app of its own: the 200 requests of /mcp's burst are not shared with the cases above.
describe('stateless MCP tool calls whose Mcp-Name the SDK refuses', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  it('calls whose Mcp-Name disagrees with the body spend none of the tool-call bucket: a good call after 110 is served', async () => {
    for (let i = 0; i < 110; i++) {
      const r = await probe(t.baseUrl, {
        headers: { ...ALL_HEADERS('get_resource'), 'mcp-name': i % 2 === 0 ? 'other_tool' : '=?base64?%?=' },
        body: toolCall(i, 'get_resource'),
      });
      expect([i, r.status]).toEqual([i, 400]);
    }
    const served = await probe(t.baseUrl, {
      headers: ALL_HEADERS('get_resource'),
      body: toolCall(300, 'get_resource'),
    });
    expect(served.status).toBe(200);
  });
});
