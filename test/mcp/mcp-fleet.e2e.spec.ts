/**
 * Two instances, as behind a round-robin balancer: the stateless (2026-07-28) era needs nothing
 * shared, so a client whose requests alternate between the instances works; a sessioned client works
 * while its requests stay on the instance that holds its session (sticky routing), and the other
 * instance answers that session id with 404 -32001.
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { MCP_SESSION_REGISTRY } from '../../apps/api/src/mcp/mcp.di-tokens.js';
import { type McpSessionRegistry } from '../../apps/api/src/mcp/mcp-session.registry.js';
import { connectClient, probe } from './support/mcp-probe.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('/mcp across two instances', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    [a, b] = await Promise.all([startTestApp(), startTestApp()]);
  });
  afterAll(async () => Promise.all([a.close(), b.close()]));

  it('a stateless client whose every request goes to the other instance lists, calls and reads', async () => {
    const hits = { a: 0, b: 0 };
    let next = 0;
    // The balancer: each request to the next instance in turn.
    const roundRobin = (input: string | URL, init?: RequestInit): Promise<Response> => {
      const target = next++ % 2 === 0 ? a : b;
      hits[target === a ? 'a' : 'b'] += 1;
      const url = new URL(String(input));
      return fetch(`${target.baseUrl}${url.pathname}${url.search}`, init);
    };
    const client = new ClientV2(
      { name: 'fleet', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new TransportV2(new URL(`${a.baseUrl}/mcp`), { fetch: roundRobin }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['get_resource', 'list_resources']);
      for (const uri of ['doc:discovery', 'skills:skills', 'doc:reference:mcp', 'guide:api']) {
        const result = (await client.callTool({ name: 'get_resource', arguments: { uri } })) as {
          isError?: boolean;
        };
        expect([uri, result.isError ?? false]).toEqual([uri, false]);
      }
      const read = await client.readResource({ uri: 'doc:discovery' });
      expect(read.contents[0]).toMatchObject({ uri: 'doc:discovery' });
    } finally {
      await client.close();
    }
    expect(hits.a).toBeGreaterThanOrEqual(3);
    expect(hits.b).toBeGreaterThanOrEqual(3);
    for (const app of [a, b]) expect(app.app.get<McpSessionRegistry>(MCP_SESSION_REGISTRY).size).toBe(0);
  });

  it('a sessioned client works on the instance holding its session; the other one does not know it', async () => {
    const { client, transport } = await connectClient(a.baseUrl);
    try {
      expect((await client.listTools()).tools).toHaveLength(2);
      const elsewhere = await probe(b.baseUrl, {
        headers: { 'mcp-session-id': transport.sessionId as string, 'mcp-protocol-version': '2025-11-25' },
        body: { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      });
      expect(elsewhere.status).toBe(404);
      expect(elsewhere.body).toEqual({
        jsonrpc: '2.0',
        error: { code: -32001, message: 'Session not found' },
        id: null,
      });
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });
});
