/**
 * One `/mcp` for every client generation: the official 2.x client in its three negotiation modes
 * (default: the sessioned initialize; `auto`: the server/discover probe, then stateless; pinned to
 * 2026-07-28) and the v1 SDK client each list the tools, call get_resource, and list and read the
 * native resources against the started app. Then raw HTTP for each error of the stateless revision,
 * the guards both eras share, and the per-address session cap.
 */
import {
  Client as ClientV2,
  ResourceNotFoundError,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MCP_SESSION_REGISTRY } from '../../apps/api/src/mcp/mcp.di-tokens.js';
import { type McpSessionRegistry } from '../../apps/api/src/mcp/mcp-session.registry.js';
import { INITIALIZE, MCP_HEADERS, openRawSession, probe, requestFrom } from './support/mcp-probe.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const STATELESS = '2026-07-28';

/** The per-request envelope of the stateless revision. */
const envelope = (version = STATELESS) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-probe', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
});

const statelessCall = (id: number, params: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'get_resource', arguments: { uri: 'doc:discovery' }, ...params, _meta: envelope() },
});

const statelessHeaders = (method: string, name?: string): Record<string, string> => ({
  'mcp-protocol-version': STATELESS,
  'mcp-method': method,
  ...(name ? { 'mcp-name': name } : {}),
});

interface EraClient {
  listTools(): Promise<{ tools: Array<{ name: string }> }>;
  callTool(request: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  listResources(params?: { cursor?: string }): Promise<{ resources: Array<{ uri: string }> }>;
  readResource(request: { uri: string }): Promise<{ contents: Array<Record<string, unknown>> }>;
  close(): Promise<void>;
}

interface Connected {
  readonly client: EraClient;
  /** Ends the session (DELETE) when there is one. */
  end(): Promise<void>;
  readonly sessionId: string | undefined;
  readonly protocolVersion: string | undefined;
}

const textOf = (result: unknown): string =>
  ((result as { content: Array<{ type: string; text: string }> }).content[0] ?? { text: '' }).text;

async function connectV1(baseUrl: string): Promise<Connected> {
  const client = new ClientV1({ name: 'era-v1', version: '1' });
  const transport = new TransportV1(new URL(`${baseUrl}/mcp`));
  await client.connect(transport);
  return {
    client,
    end: () => transport.terminateSession(),
    sessionId: transport.sessionId,
    protocolVersion: transport.protocolVersion,
  };
}

async function connectV2(baseUrl: string, mode?: 'auto' | { pin: string }): Promise<Connected> {
  const client = new ClientV2(
    { name: 'era-v2', version: '1' },
    mode === undefined ? {} : { versionNegotiation: { mode } },
  );
  const transport = new TransportV2(new URL(`${baseUrl}/mcp`));
  await client.connect(transport);
  return {
    client,
    end: async () => (transport.sessionId === undefined ? undefined : transport.terminateSession()),
    sessionId: transport.sessionId,
    protocolVersion: client.getNegotiatedProtocolVersion(),
  };
}

describe('/mcp serves every client generation', () => {
  let t: TestApp;
  let registry: McpSessionRegistry;
  beforeAll(async () => {
    t = await startTestApp();
    registry = t.app.get(MCP_SESSION_REGISTRY);
  });
  afterAll(async () => t.close());

  const clients: Array<[string, (baseUrl: string) => Promise<Connected>, 'sessioned' | 'stateless']> = [
    ['the v1 SDK client', connectV1, 'sessioned'],
    ['the 2.x client, default mode', (u) => connectV2(u), 'sessioned'],
    ['the 2.x client, auto negotiation', (u) => connectV2(u, 'auto'), 'stateless'],
    [`the 2.x client pinned to ${STATELESS}`, (u) => connectV2(u, { pin: STATELESS }), 'stateless'],
  ];

  it.each(clients)('%s: tools, get_resource, resources list and read', async (_label, connect, era) => {
    const { client, end, sessionId, protocolVersion } = await connect(t.baseUrl);
    try {
      if (era === 'stateless') {
        expect(protocolVersion).toBe(STATELESS);
        expect(sessionId).toBeUndefined();
        expect(registry.size).toBe(0);
      } else {
        expect(protocolVersion).toBe('2025-11-25');
        expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
        expect(registry.size).toBe(1);
      }
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['get_resource', 'list_resources']);
      const got = await client.callTool({ name: 'get_resource', arguments: { uri: 'doc:reference:hola' } });
      const rest = await (await fetch(`${t.baseUrl}/api/mcp/resource/doc:reference:hola`)).text();
      expect(textOf(got)).toBe(rest);
      const page = await client.callTool({ name: 'list_resources', arguments: { limit: 5 } });
      expect(JSON.parse(textOf(page))).toMatchObject({ nextCursor: '5' });
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toContain('doc:discovery');
      // The list is one page: a cursor it never issued is invalid params, not page one again.
      for (const cursor of ['abc', '', '-1']) {
        const refused = await client.listResources({ cursor }).catch((error: unknown) => error);
        expect(refused).toMatchObject({ code: -32602 });
      }
      const read = await client.readResource({ uri: 'skills:skills' });
      expect(read.contents[0]).toMatchObject({ uri: 'skills:skills', mimeType: 'text/markdown' });
    } finally {
      await end();
      await client.close();
    }
    expect(registry.size + registry.pending).toBe(0);
  });

  it("a missing resource: the 2.x client recognises both eras' answers (-32602 + data.uri in the stateless one, -32002 in the sessioned one)", async () => {
    const stateless = await connectV2(t.baseUrl, { pin: STATELESS });
    const sessioned = await connectV2(t.baseUrl);
    try {
      const modern = await stateless.client.readResource({ uri: 'doc:nothing' }).catch((e: unknown) => e);
      expect(modern).toBeInstanceOf(ResourceNotFoundError);
      expect(modern).toMatchObject({ data: { uri: 'doc:nothing' } });
      const legacy = await sessioned.client.readResource({ uri: 'doc:nothing' }).catch((e: unknown) => e);
      expect(legacy).toBeInstanceOf(ResourceNotFoundError);
      // On the wire (the v1 client test checks -32002 for the sessioned era):
      const raw = await probe(t.baseUrl, {
        headers: statelessHeaders('resources/read', 'doc:nothing'),
        body: {
          jsonrpc: '2.0',
          id: 11,
          method: 'resources/read',
          params: { uri: 'doc:nothing', _meta: envelope() },
        },
      });
      expect(raw.body).toMatchObject({ id: 11, error: { code: -32602, data: { uri: 'doc:nothing' } } });
    } finally {
      await sessioned.end();
      await Promise.all([stateless.client.close(), sessioned.client.close()]);
    }
  });

  it('server/discover names the stateless revision and the surface', async () => {
    const r = await probe(t.baseUrl, {
      headers: statelessHeaders('server/discover'),
      body: { jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta: envelope() } },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      jsonrpc: '2.0',
      id: 'd',
      result: {
        supportedVersions: [STATELESS],
        // The lists never change, so no client needs a listen stream for them.
        capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'Passport Identity API' } },
      },
    });
  });

  it('a stateless request is answered as JSON with X-Request-Id, opens no session and sets no Mcp-Session-Id', async () => {
    const response = await fetch(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        ...MCP_HEADERS,
        ...statelessHeaders('tools/call', 'get_resource'),
        'x-request-id': 'era-probe-1',
      },
      body: JSON.stringify(statelessCall(7)),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('x-request-id')).toBe('era-probe-1');
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as { id: number; result: { content: Array<{ text: string }> } };
    expect(body.id).toBe(7);
    expect(body.result.content[0].text).toContain('Passport');
    expect(registry.size + registry.pending).toBe(0);
  });

  // Found by a fuzz probe: the 202 came with Content-Type: text/plain (an empty string sent as text).
  it('a stateless notification is 202 with no body and no Content-Type, as the document and the sessioned era say', async () => {
    const response = await fetch(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, ...statelessHeaders('notifications/progress') },
      body: JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 1, progress: 1, _meta: envelope() },
      }),
    });
    expect([response.status, response.headers.get('content-type'), await response.text()]).toEqual([
      202,
      null,
      '',
    ]);
  });

  it('a sessioned answer carries X-Request-Id too', async () => {
    const response = await fetch(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'x-request-id': 'era-probe-2' },
      body: JSON.stringify(INITIALIZE),
    });
    await response.text();
    expect(response.headers.get('x-request-id')).toBe('era-probe-2');
    expect(response.headers.get('cache-control')).toMatch(/no-store|no-cache/);
    const id = response.headers.get('mcp-session-id') as string;
    expect((await probe(t.baseUrl, { method: 'DELETE', headers: { 'mcp-session-id': id } })).status).toBe(
      200,
    );
  });

  it("a session's request naming a revision no era serves: the sessioned transport's 400 -32000, not a request for _meta", async () => {
    // A probe: the SDK's classifier took the unknown version for the stateless era, whose answer asked
    // the sessioned client to add a `_meta` envelope.
    const id = await openRawSession(t.baseUrl);
    for (const version of ['2099-01-01', 'DRAFT-2026-v1']) {
      const r = await probe(t.baseUrl, {
        headers: { 'mcp-session-id': id, 'mcp-protocol-version': version },
        body: { jsonrpc: '2.0', id: 7, method: 'tools/list' },
      });
      expect([version, r.status]).toEqual([version, 400]);
      expect(r.body).toMatchObject({
        jsonrpc: '2.0',
        error: { code: -32000, message: expect.stringContaining(`Unsupported protocol version: ${version}`) },
      });
    }
    const served = await probe(t.baseUrl, {
      headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
      body: { jsonrpc: '2.0', id: 8, method: 'tools/list' },
    });
    expect(served.status).toBe(200);
    // An unknown session is 404 first, whatever the version (as the transport answers GET and DELETE).
    const unknown = await probe(t.baseUrl, {
      headers: {
        'mcp-session-id': '00000000-0000-4000-8000-000000000000',
        'mcp-protocol-version': '2099-01-01',
      },
      body: { jsonrpc: '2.0', id: 9, method: 'tools/list' },
    });
    expect([unknown.status, (unknown.body as { error: { code: number } }).error.code]).toEqual([404, -32001]);
    await probe(t.baseUrl, { method: 'DELETE', headers: { 'mcp-session-id': id } });
  });

  it('a stateless request that also sends an Mcp-Session-Id is still served without a session', async () => {
    const r = await probe(t.baseUrl, {
      headers: {
        ...statelessHeaders('tools/list'),
        'mcp-session-id': '00000000-0000-4000-8000-000000000000',
      },
      body: { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: envelope() } },
    });
    expect(r.status).toBe(200);
    expect(registry.size).toBe(0);
  });

  it('/.well-known/mcp, GET / and the OpenAPI description name the revisions; each named revision is served', async () => {
    const wellKnown = (await (await fetch(`${t.baseUrl}/.well-known/mcp`)).json()) as {
      protocols: {
        recommended: string;
        stateless: { revisions: string[] };
        sessioned: { revisions: string[] };
      };
    };
    expect(wellKnown.protocols).toMatchObject({
      selection: 'per-request',
      recommended: STATELESS,
      stateless: { revisions: [STATELESS], session: false, start: 'server/discover' },
      sessioned: { session: true, start: 'initialize' },
    });
    expect(wellKnown.protocols.sessioned.revisions[0]).toBe('2025-11-25');
    const root = (await (await fetch(`${t.baseUrl}/`)).json()) as { mcp: { protocolVersions: unknown } };
    expect(root.mcp.protocolVersions).toEqual({
      stateless: STATELESS,
      sessioned: wellKnown.protocols.sessioned.revisions,
      recommended: STATELESS,
    });
    const openapi = (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, { post: { description: string } }>;
    };
    expect(openapi.paths['/mcp'].post.description).toContain(STATELESS);
    // The documents promise nothing the endpoint refuses.
    for (const revision of wellKnown.protocols.sessioned.revisions) {
      const init = await probe(t.baseUrl, {
        body: { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: revision } },
      });
      expect([revision, init.status]).toEqual([revision, 200]);
      const id = init.headers.get('mcp-session-id') as string;
      await probe(t.baseUrl, { method: 'DELETE', headers: { 'mcp-session-id': id } });
    }
    const discovered = await probe(t.baseUrl, {
      headers: statelessHeaders('server/discover'),
      body: { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope() } },
    });
    expect((discovered.body as { result: { supportedVersions: string[] } }).result.supportedVersions).toEqual(
      wellKnown.protocols.stateless.revisions,
    );
    expect(registry.size).toBe(0);
  });

  describe('errors of the stateless revision, in its own forms', () => {
    it('an unsupported protocol version: 400 -32022 naming the supported one', async () => {
      const r = await probe(t.baseUrl, {
        headers: { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' },
        body: { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: envelope('2099-01-01') } },
      });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        jsonrpc: '2.0',
        id: 4,
        error: {
          code: -32022,
          message: 'Unsupported protocol version: 2099-01-01',
          data: { supported: [STATELESS], requested: '2099-01-01' },
        },
      });
    });

    // A request the SDK's classifier refuses (its headers disagree with its body) is answered by the SDK
    // before this server's own checks: not "Unknown tool" (200 -32602), and no tool call is charged.
    it('an Mcp-Method header that disagrees with a tools/call of an unknown tool: still 400 -32020', async () => {
      const r = await probe(t.baseUrl, {
        headers: statelessHeaders('tools/list'),
        body: {
          jsonrpc: '2.0',
          id: 4,
          method: 'tools/call',
          params: { name: 'nope', arguments: {}, _meta: envelope() },
        },
      });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ id: 4, error: { code: -32020 } });
    });

    // A mutation probe: a request the SDK refuses for its version went through this server's own checks
    // first, and a tools/call of an unknown tool was answered 200 -32602 "Unknown tool", as if the
    // revision were served (a valid tools/call spent a tool-call token before the refusal).
    it('an unsupported protocol version on a tools/call of an unknown tool: still 400 -32022', async () => {
      const r = await probe(t.baseUrl, {
        headers: { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/call', 'mcp-name': 'nope' },
        body: {
          jsonrpc: '2.0',
          id: 4,
          method: 'tools/call',
          params: { name: 'nope', arguments: {}, _meta: envelope('2099-01-01') },
        },
      });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ id: 4, error: { code: -32022 } });
    });

    it('the header names the revision but the body has no _meta: 400 -32602', async () => {
      const r = await probe(t.baseUrl, {
        headers: statelessHeaders('tools/list'),
        body: { jsonrpc: '2.0', id: 5, method: 'tools/list' },
      });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({
        id: 5,
        error: { code: -32602, data: { envelope: { missing: ['_meta'] } } },
      });
    });

    // The stateless revision's header routes the request to that era's answer, Mcp-Session-Id or not:
    // not the sessioned transport's "Unsupported protocol version" (-32000), which names only the 2025
    // revisions to a client that speaks 2026-07-28.
    it('so does a request that also sends the Mcp-Session-Id of a live session', async () => {
      const session = await openRawSession(t.baseUrl);
      const r = await probe(t.baseUrl, {
        headers: { ...statelessHeaders('tools/list'), 'mcp-session-id': session },
        body: { jsonrpc: '2.0', id: 5, method: 'tools/list' },
      });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({
        id: 5,
        error: { code: -32602, data: { envelope: { missing: ['_meta'] } } },
      });
      await probe(t.baseUrl, { method: 'DELETE', headers: { 'mcp-session-id': session } });
    });

    it('an incomplete _meta (no client capabilities): 400 -32602 naming the key', async () => {
      const { ['io.modelcontextprotocol/clientCapabilities']: _dropped, ...partial } = envelope();
      const r = await probe(t.baseUrl, {
        headers: statelessHeaders('tools/list'),
        body: { jsonrpc: '2.0', id: 6, method: 'tools/list', params: { _meta: partial } },
      });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({
        id: 6,
        error: { code: -32602, data: { envelope: { key: 'io.modelcontextprotocol/clientCapabilities' } } },
      });
    });

    it.each([
      [
        'the MCP-Protocol-Version header is missing',
        { 'mcp-method': 'tools/call', 'mcp-name': 'get_resource' },
      ],
      [
        'the MCP-Protocol-Version header names another version',
        { ...statelessHeaders('tools/call', 'get_resource'), 'mcp-protocol-version': '2025-11-25' },
      ],
      ['Mcp-Method names another method', statelessHeaders('tools/list', 'get_resource')],
      ['Mcp-Name names another tool', statelessHeaders('tools/call', 'list_resources')],
    ])('headers and body disagree (%s): 400 -32020', async (_label, headers) => {
      const r = await probe(t.baseUrl, { headers, body: statelessCall(8) });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({
        jsonrpc: '2.0',
        id: 8,
        error: { code: -32020, data: { mismatch: expect.any(Object) } },
      });
      expect(registry.size + registry.pending).toBe(0);
    });

    it('a batch of stateless requests (the revision allows none): 400 -32600', async () => {
      const r = await probe(t.baseUrl, {
        headers: statelessHeaders('tools/list'),
        body: [1, 2].map((id) => ({
          jsonrpc: '2.0',
          id,
          method: 'tools/list',
          params: { _meta: envelope() },
        })),
      });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    });

    it('a capability nested 3000 objects deep (a 12 KB body the SDK cannot classify): 400 -32600, not a 500', async () => {
      let deep: Record<string, unknown> = {};
      for (let i = 0; i < 3000; i++) deep = { x: deep };
      const meta = {
        ...envelope(),
        'io.modelcontextprotocol/clientCapabilities': { experimental: { x: deep } },
      };
      for (let attempt = 0; attempt < 2; attempt++) {
        const r = await probe(t.baseUrl, {
          headers: statelessHeaders('tools/list'),
          body: { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: meta } },
        });
        expect(r.status).toBe(400);
        expect(r.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
      }
    });

    it('initialize carrying the envelope is no method of the stateless revision: 404 -32601, no session', async () => {
      const r = await probe(t.baseUrl, {
        headers: statelessHeaders('initialize'),
        body: { ...INITIALIZE, params: { ...INITIALIZE.params, _meta: envelope() } },
      });
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ id: 1, error: { code: -32601 } });
      expect(registry.size + registry.pending).toBe(0);
    });
  });

  // Found by a probe: a request whose params break the method's schema was answered -32603 (internal
  // error) with the schema validator's raw output as its message, in both eras.
  describe('params that break the method schema: -32602, in both eras', () => {
    const bad: Array<[string, Record<string, unknown>, string | undefined]> = [
      ['resources/read', { uri: null }, undefined],
      ['resources/read', {}, undefined],
      ['resources/list', { cursor: {} }, undefined],
      ['tools/call', { name: 'get_resource', arguments: ['doc:discovery'] }, 'get_resource'],
      ['tools/call', { name: 7 }, undefined],
    ];
    /** The JSON-RPC message of an answer sent as JSON or as one SSE event. */
    const messageOf = (body: unknown): { id?: unknown; error?: { code: number; message: string } } => {
      if (typeof body !== 'string') return body as { error?: { code: number; message: string } };
      const data = body.split('\n').find((line) => line.startsWith('data: '));
      return JSON.parse(data!.slice('data: '.length)) as { error?: { code: number; message: string } };
    };
    const expectInvalidParams = (r: { status: number; body: unknown }, id: number) => {
      expect(r.status).toBe(200);
      const message = messageOf(r.body);
      expect(message).toMatchObject({ jsonrpc: '2.0', id, error: { code: -32602 } });
      // One line naming the parameter, not the validator's dump.
      expect(message.error!.message).toMatch(/^Invalid params: params\.\w+/);
      expect(message.error!.message).not.toMatch(/[\n{[]/);
    };

    it.each(bad)('stateless: %s %j', async (method, params, name) => {
      const r = await probe(t.baseUrl, {
        headers: statelessHeaders(method, name),
        body: { jsonrpc: '2.0', id: 21, method, params: { ...params, _meta: envelope() } },
      });
      expectInvalidParams(r, 21);
    });

    // Found by a review: the check must not pre-empt the SDK's own answer to a missing envelope.
    it("stateless: a tools/call without params at all keeps the SDK's 400 -32602 for the missing _meta", async () => {
      const r = await probe(t.baseUrl, {
        headers: statelessHeaders('tools/call', 'get_resource'),
        body: { jsonrpc: '2.0', id: 23, method: 'tools/call' },
      });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({
        id: 23,
        error: { code: -32602, data: { envelope: { missing: ['_meta'] } } },
      });
    });

    it.each(bad)('sessioned: %s %j', async (method, params) => {
      const session = await openRawSession(t.baseUrl);
      try {
        const r = await probe(t.baseUrl, {
          headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
          body: { jsonrpc: '2.0', id: 22, method, params },
        });
        expectInvalidParams(r, 22);
      } finally {
        await probe(t.baseUrl, { method: 'DELETE', headers: { 'mcp-session-id': session } });
      }
    });
  });

  describe('the guards both eras share', () => {
    it.each([['https://evil.example'], ['null']])(
      'Origin %s on a stateless request: 403 -32000',
      async (origin) => {
        const r = await probe(t.baseUrl, {
          headers: { ...statelessHeaders('tools/call', 'get_resource'), origin },
          body: statelessCall(9),
        });
        expect(r.status).toBe(403);
        expect(r.body).toEqual({
          jsonrpc: '2.0',
          error: { code: -32000, message: expect.any(String) },
          id: null,
        });
      },
    );

    it('a foreign Host on a stateless request: 403 -32000', async () => {
      const { request } = await import('node:http');
      const url = new URL(t.baseUrl);
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: '/mcp',
            method: 'POST',
            headers: {
              ...MCP_HEADERS,
              ...statelessHeaders('tools/call', 'get_resource'),
              host: 'evil.example',
            },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify(statelessCall(10)));
      });
      expect(status).toBe(403);
    });
  });
});

describe('/mcp tool-call rate in the stateless era', () => {
  it('tools/call beyond 100 per minute per address gets 429 carrying each refused request id', async () => {
    const t = await startTestApp();
    try {
      const started = Date.now();
      const results = await Promise.all(
        Array.from({ length: 130 }, (_, i) =>
          probe(t.baseUrl, {
            headers: statelessHeaders('tools/call', 'get_resource'),
            body: statelessCall(i + 1),
          }),
        ),
      );
      const elapsedMs = Date.now() - started;
      const passed = results.filter((r) => r.status === 200).length;
      const refused = results.filter((r) => r.status === 429);
      expect(passed + refused.length).toBe(130);
      expect(passed).toBeGreaterThanOrEqual(100);
      expect(passed).toBeLessThanOrEqual(100 + Math.ceil((elapsedMs * 100) / 60_000) + 1);
      for (const r of refused) {
        const body = r.body as { id: number; error: { code: number; message: string } };
        expect(body.error).toEqual({ code: -32000, message: expect.stringContaining('tool-call') });
        expect(body.id).toBeGreaterThanOrEqual(1);
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
      // The sessioned era draws on the same per-address bucket.
      const init = await probe(t.baseUrl, { body: INITIALIZE });
      expect(init.status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('/mcp sessions per client address', () => {
  let t: TestApp;
  let registry: McpSessionRegistry;
  beforeAll(async () => {
    t = await startTestApp({ MCP_MAX_SESSIONS: '4', MCP_MAX_SESSIONS_PER_ADDRESS: '2' });
    registry = t.app.get(MCP_SESSION_REGISTRY);
  });
  afterAll(async () => t.close());

  const initializeFrom = (address: string) =>
    requestFrom(t.baseUrl, address, { method: 'POST', headers: MCP_HEADERS, body: INITIALIZE });

  it('one address cannot take every session: its third initialize gets 429, a second address still gets one', async () => {
    const first = await initializeFrom('127.0.0.3');
    const second = await initializeFrom('127.0.0.3');
    expect([first.status, second.status]).toEqual([200, 200]);
    const refused = await initializeFrom('127.0.0.3');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(refused.text)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: expect.stringContaining('client address (limit 2)') },
      id: null,
    });
    expect(registry.size).toBe(2);
    const other = await initializeFrom('127.0.0.4');
    expect(other.status).toBe(200);
    expect(other.headers['mcp-session-id']).toMatch(/^[0-9a-f-]{36}$/);
    // The refused address can still use the stateless revision, which needs no session.
    const stateless = await requestFrom(t.baseUrl, '127.0.0.3', {
      method: 'POST',
      headers: statelessHeaders('tools/call', 'get_resource'),
      body: statelessCall(1),
    });
    expect(stateless.status).toBe(200);
    // Ending one of its sessions frees a slot for that address.
    const ended = await requestFrom(t.baseUrl, '127.0.0.3', {
      method: 'DELETE',
      headers: { 'mcp-session-id': String(first.headers['mcp-session-id']) },
    });
    expect(ended.status).toBe(200);
    expect((await initializeFrom('127.0.0.3')).status).toBe(200);
    expect(registry.size).toBe(3);
  });
});

describe('/mcp listen streams of the stateless era', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  it('a subscriptions/listen asking for every kind of change is acknowledged and ended at once: no stream can pile up', async () => {
    const listen = {
      jsonrpc: '2.0',
      id: 'l',
      method: 'subscriptions/listen',
      params: {
        notifications: {
          toolsListChanged: true,
          resourcesListChanged: true,
          promptsListChanged: true,
          resourceSubscriptions: ['doc:discovery'],
        },
        _meta: envelope(),
      },
    };
    // Each probe reads its answer to the end; a stream left open would hold it until the timeout.
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        Promise.race([
          requestFrom(t.baseUrl, '127.0.0.5', {
            method: 'POST',
            headers: statelessHeaders('subscriptions/listen'),
            body: listen,
          }),
          new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), 3000).unref()),
        ]),
      ),
    );
    for (const answer of answers) {
      expect(answer).not.toBe('still open');
      const { status, text } = answer as { status: number; text: string };
      expect(status).toBe(200);
      expect(text).toContain('"notifications":{}');
      expect(text).toContain('"resultType":"complete"');
    }
  });
});
