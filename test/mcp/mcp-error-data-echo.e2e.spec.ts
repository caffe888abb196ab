/**
 * Review of 93e5fd3 (MCP error echoes bounded and printable): only answers with an HTTP status of 400
 * or more are bounded. A resources/read of an unknown uri is a JSON-RPC error in a 200 answer, and its
 * `error.data.uri` (this service's own code, mcp-server.factory.ts) quotes the client's uri raw: C1
 * controls (U+009B, the 8-bit CSI; U+0085) and a bidi override (U+202E) come back as sent, in both eras.
 */
import { MCP_HEADERS, openRawSession, probe } from './support/mcp-probe.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const STATELESS = '2026-07-28';
const envelope = {
  'io.modelcontextprotocol/protocolVersion': STATELESS,
  'io.modelcontextprotocol/clientInfo': { name: 'echo-probe', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const UNPRINTABLE = /[\p{Cc}\p{Cf}\u2028\u2029]/u;

describe('MCP: a read miss quotes the uri printable', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
  });
  afterAll(async () => app.close());

  it('stateless (2026-07-28): error.data.uri', async () => {
    // U+009B and U+0085 travel in the Mcp-Name header as latin1 bytes; the body carries them as JSON.
    const uri = 'doc:\u009b31m\u0085x';
    const response = await fetch(`${app.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        ...MCP_HEADERS,
        'mcp-protocol-version': STATELESS,
        'mcp-method': 'resources/read',
        'mcp-name': uri,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'resources/read',
        params: { _meta: envelope, uri },
      }),
    });
    const text = await response.text();
    expect(text).toContain('Resource not found');
    expect(UNPRINTABLE.test(text.replace(/[\r\n]/g, ''))).toBe(false);
  });

  it('sessioned (2025-03-26): error.data.uri', async () => {
    const id = await openRawSession(app.baseUrl);
    const answer = await probe(app.baseUrl, {
      headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-03-26' },
      body: { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'doc:\u009b31m\u202ex' } },
    });
    const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    expect(text).toContain('Resource not found');
    expect(UNPRINTABLE.test(text.replace(/[\r\n]/g, ''))).toBe(false);
  });
});
