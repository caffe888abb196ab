/**
 * The drain in process, on the real app (SQLite store, a sessioned MCP client with its event stream
 * open): readiness turns to draining, the server stops accepting, the stream (which never ends on its
 * own) is ended as the server stops accepting, so the drain finishes without waiting DRAIN_TIMEOUT_MS
 * (a hostile-client probe: one idle SDK client made every SIGTERM take the whole 10 s); then the MCP
 * sessions and the store are closed. A request that cannot finish is still cut at the timeout
 * (graceful-shutdown.e2e.spec.ts).
 */
import { drainAndClose } from '../../apps/api/src/platform/lifecycle/graceful-shutdown.js';
import { Readiness } from '../../apps/api/src/platform/lifecycle/readiness.js';
import { STORE_HEALTH_INDICATOR } from '../../apps/api/src/platform/infrastructure/di-tokens.js';
import { type HealthIndicator } from '../../apps/api/src/platform/infrastructure/health-indicator.js';
import { MCP_SESSION_REGISTRY } from '../../apps/api/src/mcp/mcp.di-tokens.js';
import { type McpSessionRegistry } from '../../apps/api/src/mcp/mcp-session.registry.js';
import { connectClient } from '../mcp/support/mcp-probe.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('drainAndClose', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close().catch(() => undefined));

  it('marks draining, stops accepting, ends MCP event streams at once, closes MCP sessions and the store', async () => {
    const readiness = app.app.get(Readiness);
    expect(readiness.state).toBe('ready');
    const { client } = await connectClient(app.baseUrl);
    client.onerror = () => undefined; // the cut stream is reported here
    await client.listTools();
    const sessions = app.app.get<McpSessionRegistry>(MCP_SESSION_REGISTRY);
    expect(sessions.size).toBe(1);
    const store = app.app.get<HealthIndicator>(STORE_HEALTH_INDICATOR);
    expect((await store.check()).ok).toBe(true);

    const messages: string[] = [];
    const log = {
      info: (_f: object, m: string) => messages.push(m),
      warn: (_f: object, m: string) => messages.push(m),
    };
    const started = Date.now();
    const drained = drainAndClose(app.app, { drainDelayMs: 0, drainTimeoutMs: 20_000 }, log);
    expect(readiness.state).toBe('draining');
    await drained;
    const tookMs = Date.now() - started;

    // The client's event stream (GET /mcp) never ends by itself: the drain ended it, so nothing was cut.
    expect(messages).not.toContain('shutdown: drain timeout, closing the remaining connections');
    expect(tookMs).toBeLessThan(10_000);
    expect(sessions.size).toBe(0);
    expect((await store.check()).ok).toBe(false); // the SQLite database is closed
    await expect(fetch(`${app.baseUrl}/health`)).rejects.toThrow();
    expect(messages[0]).toBe('shutdown: draining');
    expect(messages.at(-1)).toBe('shutdown: closed');
    await client.close().catch(() => undefined);
  });
});
