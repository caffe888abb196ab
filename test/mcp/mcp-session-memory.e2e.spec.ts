/**
 * 1000 sessions opened (initialize) and closed (DELETE) one after another leave nothing behind: the
 * registry returns to 0 and the heap, measured after full collections, does not grow with the number
 * of sessions.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MCP_SESSION_REGISTRY } from '../../apps/api/src/mcp/mcp.di-tokens.js';
import { type McpSessionRegistry } from '../../apps/api/src/mcp/mcp-session.registry.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { INITIALIZE, requestFrom } from './support/mcp-probe.js';

/** Full collections: the exposed gc, or V8's own enabled at run time (so the bound can be tight either way). */
function exposeGc(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
const gc = exposeGc();

async function settledHeap(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
  return process.memoryUsage().heapUsed;
}

describe('MCP session churn', () => {
  let t: TestApp;
  let registry: McpSessionRegistry;
  beforeAll(async () => {
    // Raise the public bucket out of the way: this test measures memory, not limits.
    t = await startTestApp({ STORE: 'memory', RATE_LIMIT_CAPACITY: '100000' });
    registry = t.app.get(MCP_SESSION_REGISTRY);
  });
  afterAll(async () => t.close());

  async function churn(n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      // 2 requests per cycle; rotating the source address keeps each address under the /mcp burst of 200.
      const from = `127.0.0.${2 + (i % 20)}`;
      const init = await requestFrom(t.baseUrl, from, { method: 'POST', body: INITIALIZE });
      const id = init.headers['mcp-session-id'];
      if (init.status !== 200 || typeof id !== 'string')
        throw new Error(`initialize answered ${init.status}`);
      const del = await requestFrom(t.baseUrl, from, {
        method: 'DELETE',
        headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
      });
      if (del.status !== 200) throw new Error(`DELETE answered ${del.status}`);
    }
  }

  it('1000 sequential open/close cycles leave the registry empty and the heap flat', async () => {
    await churn(100); // warm-up: JIT, pools, caches
    const before = await settledHeap();
    await churn(900);
    expect(registry.size).toBe(0);
    expect(registry.pending).toBe(0);
    const growth = (await settledHeap()) - before;
    // A leaked session (transport + server + closures) costs tens of KiB: 900 leaks would be tens of MiB.
    expect(growth).toBeLessThan(4 * 1024 * 1024);
  }, 120_000);
});
