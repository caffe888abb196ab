/**
 * The MCP endpoint through the SDK's own Client over streamable HTTP against the started app:
 * initialize, both tools, native resources (the live DID and face documents included), terminate.
 */
import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { SERVER_IDENTITY } from '../../apps/api/src/platform/infrastructure/di-tokens.js';
import { type ServerIdentity } from '../../apps/api/src/platform/infrastructure/server-identity.js';
import { MCP_SESSION_REGISTRY } from '../../apps/api/src/mcp/mcp.di-tokens.js';
import { type McpSessionRegistry } from '../../apps/api/src/mcp/mcp-session.registry.js';
import { RESOURCE_MANIFEST } from '../../apps/api/src/mcp/mcp-resource.manifest.js';
import { connectClient, probe } from './support/mcp-probe.js';
import { startTestApp as startMcpTestApp, type TestApp as McpTestApp } from '../support/test-app.js';

const textOf = (result: unknown) => {
  const [first] = (result as { content: unknown }).content as Array<{ type: string; text: string }>;
  expect(first.type).toBe('text');
  return first.text;
};

describe('MCP over streamable HTTP with the SDK client', () => {
  let t: McpTestApp;
  let client: Client;
  let transport: StreamableHTTPClientTransport;
  let registry: McpSessionRegistry;

  beforeAll(async () => {
    t = await startMcpTestApp();
    registry = t.app.get(MCP_SESSION_REGISTRY);
    ({ client, transport } = await connectClient(t.baseUrl));
  });
  afterAll(async () => {
    await client.close().catch(() => undefined);
    await t.close();
  });

  it('initializes a session with a server-assigned id and the 2025-11-25 protocol', () => {
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(transport.protocolVersion).toBe('2025-11-25');
    expect(client.getServerVersion()?.name).toBe('Passport Identity API');
    // The lists never change, as the stateless era's server/discover says (a probe saw true here).
    expect(client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: false },
      resources: { listChanged: false },
    });
    expect(registry.size).toBe(1);
  });

  // Found by a probe: the sessioned era answered an unknown tool as a tool result with isError, the
  // stateless one as a JSON-RPC error.
  it('an unknown tool is a JSON-RPC error -32602, as in the stateless era', async () => {
    const failure = await client.callTool({ name: 'nope', arguments: {} }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(McpError);
    expect(failure).toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool: "nope"') });
  });

  it('lists exactly the two tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['get_resource', 'list_resources']);
    const get = tools.find((tool) => tool.name === 'get_resource');
    expect(get?.inputSchema.required).toEqual(['uri']);
  });

  it('list_resources pages with limit and cursor like the REST list', async () => {
    const first = await client.callTool({ name: 'list_resources', arguments: { limit: 5 } });
    const page1 = JSON.parse(textOf(first)) as { resources: Array<{ uri: string }>; nextCursor?: string };
    expect(page1.resources).toHaveLength(5);
    expect(page1.nextCursor).toBe('5');
    expect(first.structuredContent).toEqual(page1);
    const second = await client.callTool({
      name: 'list_resources',
      arguments: { limit: 5, cursor: page1.nextCursor },
    });
    const page2 = JSON.parse(textOf(second)) as { resources: Array<{ uri: string }> };
    const rest = (await (await fetch(`${t.baseUrl}/api/mcp/resources?limit=5&cursor=5`)).json()) as unknown;
    expect(page2).toEqual(rest);
    const all = JSON.parse(textOf(await client.callTool({ name: 'list_resources', arguments: {} }))) as {
      resources: unknown[];
    };
    // Every resource of the manifest (a new one needs no edit here), the DID template included.
    expect(all.resources).toHaveLength(RESOURCE_MANIFEST.length);
  });

  it('list_resources rejects a limit outside 1..100 as a tool error', async () => {
    const result = await client.callTool({ name: 'list_resources', arguments: { limit: 0 } });
    expect(result.isError).toBe(true);
  });

  it('get_resource returns the same text as the REST endpoint', async () => {
    const result = await client.callTool({ name: 'get_resource', arguments: { uri: 'doc:reference:hola' } });
    const rest = await (await fetch(`${t.baseUrl}/api/mcp/resource/doc:reference:hola`)).text();
    expect(textOf(result)).toBe(rest);
    expect(rest).toContain('ABCDEFGHJKMNPQRSTUVWXYZ');
  });

  it('get_resource reports an unknown uri as a tool error carrying MCP_RESOURCE_NOT_FOUND', async () => {
    const result = await client.callTool({ name: 'get_resource', arguments: { uri: 'doc:nothing' } });
    expect(result.isError).toBe(true);
    expect(JSON.parse(textOf(result))).toMatchObject({
      error: { code: 'MCP_RESOURCE_NOT_FOUND', details: { uri: 'doc:nothing' } },
    });
  });

  it('serves the registry through native resources/list, templates and read', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain('doc:discovery');
    expect(resources.map((r) => r.uri)).not.toContain('did:resolve:{tokenId}');
    const { resourceTemplates } = await client.listResourceTemplates();
    // Every template of the manifest (a second one was dropped: only the DID template was listed).
    const templates = RESOURCE_MANIFEST.filter((spec) => spec.uri.includes('{')).map((spec) => spec.uri);
    expect(templates).toContain('did:resolve:{tokenId}');
    expect(resourceTemplates.map((r) => r.uriTemplate)).toEqual(templates);
    expect(resources).toHaveLength(RESOURCE_MANIFEST.length - templates.length);
    const read = await client.readResource({ uri: 'skills:skills' });
    expect(read.contents[0]).toMatchObject({ uri: 'skills:skills', mimeType: 'text/markdown' });
  });

  it('resolves the live DID document of the server passport through the chain', async () => {
    const server = t.app.get<ServerIdentity>(SERVER_IDENTITY);
    const read = await client.readResource({ uri: `did:resolve:${server.tokenId}` });
    const document = JSON.parse((read.contents[0] as { text: string }).text) as Record<string, unknown>;
    expect(document.id).toBe(`did:passport:${server.tokenId}`);
    const rest = await (await fetch(`${t.baseUrl}/api/mcp/resource/did:resolve:${server.tokenId}`)).json();
    expect(rest).toEqual(document);
    // Found by a probe: another letter case got the lowercase DID's document (REST resolve refuses it).
    const shouted = await client
      .readResource({ uri: `did:resolve:${server.tokenId.toUpperCase()}` })
      .catch((e: unknown) => e);
    expect(shouted).toBeInstanceOf(McpError);
    expect((shouted as McpError).code).toBe(-32002);
  });

  it('answers -32002 for a resource that does not exist (a DID with no passport included)', async () => {
    for (const uri of ['doc:nothing', 'did:resolve:bjbvcjzqbdsj', 'did:resolve:not-a-token']) {
      const error = await client.readResource({ uri }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32002);
    }
  });

  // An audit: an id that is no token id read DID_NOT_FOUND, where REST resolve answers INVALID_DID.
  it('says why a DID resource is not found: no passport, or no lowercase token id (with the URI to use)', async () => {
    const reasonOf = async (uri: string) =>
      (
        (await (await fetch(`${t.baseUrl}/api/mcp/resource/${uri}`)).json()) as {
          error: { details: unknown };
        }
      ).error.details;
    expect(await reasonOf('did:resolve:bjbvcjzqbdsj')).toEqual({
      uri: 'did:resolve:bjbvcjzqbdsj',
      reason: 'DID_NOT_FOUND',
    });
    expect(await reasonOf('did:resolve:BJBVCJZQBDSJ')).toEqual({
      uri: 'did:resolve:BJBVCJZQBDSJ',
      reason: 'INVALID_DID',
      canonicalUri: 'did:resolve:bjbvcjzqbdsj',
    });
    expect(await reasonOf('did:resolve:not-a-token')).toEqual({
      uri: 'did:resolve:not-a-token',
      reason: 'INVALID_DID',
    });
  });

  it('serves the face table from the core', async () => {
    const read = await client.readResource({ uri: 'token:facial-categories' });
    const doc = JSON.parse((read.contents[0] as { text: string }).text) as {
      categories: Array<{ name: string }>;
      example: { face: { checksumValid: boolean } };
    };
    expect(doc.categories.map((c) => c.name)).toHaveLength(11);
    expect(doc.categories[3].name).toBe('regional_bone_structure');
    expect(doc.example.face.checksumValid).toBe(true);
  });

  it('terminates with DELETE: the registry forgets the session and its id answers 404 -32001', async () => {
    const id = transport.sessionId as string;
    await transport.terminateSession();
    expect(registry.size).toBe(0);
    const after = await probe(t.baseUrl, {
      headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
      body: { jsonrpc: '2.0', id: 9, method: 'tools/list' },
    });
    expect(after.status).toBe(404);
    expect(after.body).toEqual({
      jsonrpc: '2.0',
      error: { code: -32001, message: 'Session not found' },
      id: null,
    });
  });
});
