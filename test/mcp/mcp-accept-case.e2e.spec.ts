/**
 * Media types are case-insensitive (RFC 9110 §8.3.1), but both SDK transports look for
 * `application/json` and `text/event-stream` as lowercase text: a client sending
 * `Accept: Application/JSON, Text/Event-Stream` was refused 406 (a fuzz's note). Every era of /mcp now
 * takes the header in any case: the sessioned initialize, a request on the session, its GET stream, and
 * the stateless revision. An Accept that names neither type is still refused.
 */
import { INITIALIZE, MCP_HEADERS, probe } from './support/mcp-probe.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const MIXED_CASE_ACCEPT = 'Application/JSON, TEXT/EVENT-STREAM';
const TOOLS_LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

describe('/mcp takes Accept media types in any case', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  it('initializes a session, serves it and opens its GET stream', async () => {
    const init = await probe(t.baseUrl, { headers: { accept: MIXED_CASE_ACCEPT }, body: INITIALIZE });
    expect(init.status).toBe(200);
    const id = init.headers.get('mcp-session-id') as string;
    expect(id).toEqual(expect.any(String));
    const session = { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };

    const listed = await probe(t.baseUrl, {
      headers: { ...session, accept: MIXED_CASE_ACCEPT },
      body: TOOLS_LIST,
    });
    expect(listed.status).toBe(200);
    expect(String(listed.body)).toContain('"get_resource"');

    const aborted = new AbortController();
    const stream = await fetch(`${t.baseUrl}/mcp`, {
      headers: { ...session, accept: 'Text/Event-Stream' },
      signal: aborted.signal,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    aborted.abort();

    const ended = await probe(t.baseUrl, { method: 'DELETE', headers: session });
    expect(ended.status).toBe(200);
  });

  it('serves the stateless revision', async () => {
    const r = await probe(t.baseUrl, {
      headers: {
        accept: MIXED_CASE_ACCEPT,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      },
      body: {
        ...TOOLS_LIST,
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'accept-case', version: '0' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      },
    });
    expect(r.status).toBe(200);
    expect(JSON.stringify(r.body)).toContain('"get_resource"');
  });

  it('still refuses an Accept that names neither type, 406', async () => {
    const r = await probe(t.baseUrl, {
      headers: { ...MCP_HEADERS, accept: 'Text/HTML' },
      body: INITIALIZE,
    });
    expect(r.status).toBe(406);
  });
});
