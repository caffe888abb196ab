/**
 * Found by a probe (secrets and hostile bytes): the MCP SDKs' error messages quote client values
 * (the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers, the body's method and envelope version)
 * whole and raw. An 8 000-character header came back three times (24 KB), a 60 KB method twice
 * (120 KB), C1 controls (U+009B, the 8-bit CSI) and bidi overrides unescaped; the stateless leg's
 * debug line wrote the same text (60 KB per request). Every echoed value must be bounded and
 * printable, as the app's own echoes are (`printableText`).
 */
import { MCP_HEADERS } from './support/mcp-probe.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const STATELESS = '2026-07-28';
const envelope = (version = STATELESS) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientInfo': { name: 'echo-probe', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
});
// U+009B is sent as the header byte 0x9B (Node reads header bytes as latin1); JSON carries it as is.
const C1 = '\u009b31m\u0085';
const UNPRINTABLE = /[\p{Cc}\p{Cf}\u2028\u2029]/u;
const MAX_ANSWER = 4096;

async function post(baseUrl: string, headers: Record<string, string>, body: unknown) {
  const response = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

describe('MCP error answers quote client values bounded and printable', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
  });
  afterAll(async () => app.close());

  const big = 'B'.repeat(8000);
  const cases: Array<[string, Record<string, string>, unknown]> = [
    [
      'an unknown MCP-Protocol-Version header',
      { 'mcp-protocol-version': `2099${C1}${big}` },
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope() } },
    ],
    [
      'a stateless header without the envelope',
      { 'mcp-protocol-version': `${STATELESS}x${C1}${big}` },
      { jsonrpc: '2.0', id: 1, method: 'ping' },
    ],
    [
      'an Mcp-Method header that disagrees with the body',
      { 'mcp-protocol-version': STATELESS, 'mcp-method': `x${C1}${big}` },
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope() } },
    ],
    [
      'an Mcp-Name header that disagrees with the body',
      { 'mcp-protocol-version': STATELESS, 'mcp-method': 'tools/call', 'mcp-name': `${C1}${big}` },
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_resource', arguments: { uri: 'doc:discovery' }, _meta: envelope() },
      },
    ],
    [
      'a 60 KB method in the body',
      { 'mcp-protocol-version': STATELESS, 'mcp-method': 'tools/list' },
      { jsonrpc: '2.0', id: 1, method: `x${C1}\u202e${'M'.repeat(60_000)}`, params: { _meta: envelope() } },
    ],
    [
      'an envelope version that disagrees with the header',
      { 'mcp-protocol-version': STATELESS, 'mcp-method': 'tools/list' },
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope(`${C1}\u202e${big}`) } },
    ],
  ];

  it.each(cases)('%s', async (_name, headers, body) => {
    const answer = await post(app.baseUrl, headers, body);
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.text.length).toBeLessThanOrEqual(MAX_ANSWER);
    expect(UNPRINTABLE.test(answer.text)).toBe(false);
  });

  it('a session: an unsupported MCP-Protocol-Version header', async () => {
    const init = await fetch(`${app.baseUrl}/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'p', version: '1' } },
      }),
    });
    await init.text();
    const session = init.headers.get('mcp-session-id') as string;
    const answer = await post(
      app.baseUrl,
      { 'mcp-session-id': session, 'mcp-protocol-version': `2025-06-18${C1}${big}` },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    );
    expect(answer.status).toBe(400);
    expect(answer.text.length).toBeLessThanOrEqual(MAX_ANSWER);
    expect(UNPRINTABLE.test(answer.text)).toBe(false);
  });
});
