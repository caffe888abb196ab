/**
 * MCP endpoint figures (run: `npm run bench -- mcp`), all in one run so the ratios hold:
 * 1. round trips per second of a stateless (2026-07-28) tools/call through the official 2.x client
 *    pinned to that revision, sequential (one HTTP request each, no session);
 * 2. round trips per second of a sessioned initialize + tools/call + DELETE through the v1 SDK Client,
 *    sequential;
 * 3. a plain REST read of the same resource;
 * 4. resident and heap memory per idle session: open N sessions, measure the delta / N.
 */
import {
  Client as StatelessClient,
  StreamableHTTPClientTransport as StatelessTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MCP_SESSION_REGISTRY } from '../apps/api/src/mcp/mcp.di-tokens.js';
import { type McpSessionRegistry } from '../apps/api/src/mcp/mcp-session.registry.js';
import { INITIALIZE, requestFrom } from '../test/mcp/support/mcp-probe.js';
import { startTestApp } from '../test/support/test-app.js';

/**
 * A fetch for the SDK client that connects from a chosen loopback address (the /mcp burst of 200 is per
 * client address; each round trip costs 4 requests). Bodies are buffered, which is fine for the
 * request-scoped SSE answers of POST; the client's optional standalone GET stream ends on DELETE.
 */
function fetchFrom(localAddress: string) {
  return async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const { request } = await import('node:http');
    const url = new URL(String(input));
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => (headers[key] = value));
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: init?.method ?? 'GET',
          headers,
          localAddress,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const out = new Headers();
            for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') out.set(k, v);
            const status = res.statusCode ?? 500;
            resolve(new Response(status === 204 ? null : Buffer.concat(chunks), { status, headers: out }));
          });
        },
      );
      req.on('error', reject);
      req.end(typeof init?.body === 'string' ? init.body : undefined);
    });
  };
}

const gc = (globalThis as { gc?: () => void }).gc;
const settle = async () => {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 50));
  }
};

export async function main(): Promise<void> {
  const rounds = Number(process.env.ROUNDS ?? 300);
  const idle = Number(process.env.IDLE_SESSIONS ?? 500);
  const t = await startTestApp({
    STORE: 'memory',
    RATE_LIMIT_CAPACITY: '1000000',
    MCP_MAX_SESSIONS: String(idle + 10),
  });
  const registry = t.app.get<McpSessionRegistry>(MCP_SESSION_REGISTRY);
  try {
    // 1. stateless tools/call: one client, each request from the next loopback address (the tool-call
    // rate is 100 per minute per address).
    let m = 0;
    const rotating = (input: string | URL, init?: RequestInit) =>
      fetchFrom(`127.0.3.${1 + (m++ % 250)}`)(input, init);
    const stateless = new StatelessClient(
      { name: 'bench', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await stateless.connect(new StatelessTransport(new URL(`${t.baseUrl}/mcp`), { fetch: rotating }));
    const statelessCall = () =>
      stateless.callTool({ name: 'get_resource', arguments: { uri: 'doc:discovery' } });
    for (let i = 0; i < 20; i++) await statelessCall();
    let started = performance.now();
    for (let i = 0; i < rounds; i++) await statelessCall();
    const statelessSeconds = (performance.now() - started) / 1000;
    await stateless.close();
    if (registry.size !== 0) throw new Error('a stateless call left a session behind');

    // 2. initialize + call + terminate
    let n = 0;
    const roundTrip = async () => {
      const client = new Client({ name: 'bench', version: '1' });
      const from = `127.0.2.${1 + (n++ % 250)}`;
      const transport = new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
        fetch: fetchFrom(from),
      });
      await client.connect(transport);
      await client.callTool({ name: 'get_resource', arguments: { uri: 'doc:discovery' } });
      await transport.terminateSession();
      await client.close();
    };
    for (let i = 0; i < 20; i++) await roundTrip();
    started = performance.now();
    for (let i = 0; i < rounds; i++) await roundTrip();
    const mcpSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    // Like the MCP legs: a new connection per request, from a rotating loopback address.
    for (let i = 0; i < rounds; i++)
      await (await rotating(`${t.baseUrl}/api/mcp/resource/doc:discovery`)).text();
    const restSeconds = (performance.now() - started) / 1000;

    // 4. idle sessions
    await settle();
    const rss0 = process.memoryUsage().rss;
    const heap0 = process.memoryUsage().heapUsed;
    for (let i = 0; i < idle; i++) {
      const r = await requestFrom(t.baseUrl, `127.0.1.${1 + (i % 200)}`, {
        method: 'POST',
        body: INITIALIZE,
      });
      if (r.status !== 200) throw new Error(`initialize ${r.status}`);
    }
    await settle();
    const rss1 = process.memoryUsage().rss;
    const heap1 = process.memoryUsage().heapUsed;
    const open = registry.size;
    await registry.closeAll();

    console.log(`node ${process.version}, gc ${gc ? 'exposed' : 'not exposed'}`);
    console.log(
      `stateless 2026-07-28 tools/call (2.x client pinned, sequential): ${(rounds / statelessSeconds).toFixed(0)} round trips/s (${((statelessSeconds / rounds) * 1000).toFixed(2)} ms each)`,
    );
    console.log(
      `sessioned initialize+tools/call+DELETE (v1 SDK client, sequential): ${(rounds / mcpSeconds).toFixed(0)} round trips/s (${((mcpSeconds / rounds) * 1000).toFixed(2)} ms each); stateless/sessioned ${(mcpSeconds / statelessSeconds).toFixed(1)}x`,
    );
    console.log(
      `REST GET of the same resource (same connection handling), sequential: ${(rounds / restSeconds).toFixed(0)} req/s; REST/sessioned ${(mcpSeconds / restSeconds).toFixed(1)}x, REST/stateless ${(statelessSeconds / restSeconds).toFixed(1)}x`,
    );
    console.log(
      `idle sessions: ${open}; RSS per session ${((rss1 - rss0) / open / 1024).toFixed(1)} KiB; heap per session ${((heap1 - heap0) / open / 1024).toFixed(1)} KiB`,
    );
  } finally {
    await t.close();
  }
}

// Run when executed directly. (The full app needs decorator metadata, which esbuild/tsx does not emit;
// until the app provides explicit injection tokens everywhere, run it through jest's swc transform:
// see the report.)
if (process.argv[1]?.endsWith('mcp.bench.ts')) await main();
