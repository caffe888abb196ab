/**
 * An address at its own session cap takes the slot of its own least recently used idle session (1.14.0).
 * A session whose client is still connected, its event stream (GET) open, counted as idle from its last
 * POST: a long-lived agent idling for a minute between calls lost its session to the same address's
 * task clients (the SDK's Client.close() sends no DELETE but does close its stream), while a task's
 * abandoned session, with no stream, stayed. The live client's next call was 404 "Session not found"
 * (a review: MCP_MAX_SESSIONS_PER_ADDRESS=2, MCP_SESSION_RECLAIM_IDLE_MS=1000, the SDK's own clients).
 */
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MCP_SESSION_REGISTRY } from '../../apps/api/src/mcp/mcp.di-tokens.js';
import { type McpSessionRegistry } from '../../apps/api/src/mcp/mcp-session.registry.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('/mcp: an address at its own cap, one of its clients still connected', () => {
  let t: TestApp;
  let registry: McpSessionRegistry;
  beforeAll(async () => {
    t = await startTestApp({
      MCP_MAX_SESSIONS: '10',
      MCP_MAX_SESSIONS_PER_ADDRESS: '2',
      MCP_SESSION_RECLAIM_IDLE_MS: '1000',
    });
    registry = t.app.get(MCP_SESSION_REGISTRY);
  });
  afterAll(async () => t.close());

  it("takes an abandoned session's slot, not that of a session whose event stream is open", async () => {
    const url = new URL('/mcp', t.baseUrl);
    const live = new ClientV1({ name: 'live', version: '1' });
    await live.connect(new TransportV1(url));
    await live.listTools();
    try {
      await sleep(1_500); // the live client idles past the reclaim time, its event stream open
      for (let task = 0; task < 2; task++) {
        // The second task comes once the first one's abandoned session has idled past the reclaim time.
        if (task > 0) await sleep(1_100);
        const client = new ClientV1({ name: `task-${task}`, version: '1' });
        await client.connect(new TransportV1(url));
        await client.listTools();
        await client.close(); // no DELETE: its session stays, its stream ends
      }
      expect(registry.size).toBe(2);
      await expect(live.listTools()).resolves.toEqual(expect.objectContaining({ tools: expect.any(Array) }));
    } finally {
      await live.close();
    }
  }, 30_000);
});
