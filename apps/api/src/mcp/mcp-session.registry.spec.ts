/**
 * The session registry with real SDK transports and servers: the cap counts in-flight
 * initializations, eviction closes transport and server (not only the map entry), and closing
 * everything leaves nothing registered.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { McpSessionRegistry } from './mcp-session.registry.js';

function newSession(id: string) {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => id });
  const server = new McpServer({ name: 't', version: '0' });
  const closed = { transport: false, server: false };
  transport.onclose = () => (closed.transport = true);
  server.server.onclose = () => (closed.server = true);
  return { id, transport, server, closed };
}

describe('McpSessionRegistry', () => {
  let now = 1_000_000;
  const registries: McpSessionRegistry[] = [];
  const make = (maxSessions: number, ttlMs = 60_000) => {
    const registry = new McpSessionRegistry({
      maxSessions,
      ttlMs,
      sweepIntervalMs: 3_600_000,
      now: () => now,
    });
    registries.push(registry);
    return registry;
  };
  afterAll(async () => Promise.all(registries.map((r) => r.closeAll())));

  it('refuses a reservation once sessions plus in-flight initializations reach the cap', () => {
    const registry = make(2);
    expect(registry.tryReserve()).toBe(true);
    expect(registry.tryReserve()).toBe(true);
    expect(registry.tryReserve()).toBe(false);
    registry.release();
    expect(registry.pending).toBe(1);
    expect(registry.tryReserve()).toBe(true);
  });

  it('turns a reservation into a session and frees the slot when the session closes', async () => {
    const registry = make(1);
    expect(registry.tryReserve()).toBe(true);
    const s = newSession('a');
    registry.register(s);
    expect(registry.size).toBe(1);
    expect(registry.pending).toBe(0);
    expect(registry.tryReserve()).toBe(false);
    await registry.close('a');
    expect(registry.size).toBe(0);
    expect(registry.tryReserve()).toBe(true);
  });

  it('evicts only sessions idle for the TTL, closing both their transport and server', async () => {
    const registry = make(10, 1000);
    const idle = newSession('idle');
    const busy = newSession('busy');
    for (const s of [idle, busy]) {
      registry.tryReserve();
      await s.server.connect(s.transport);
      registry.register(s);
    }
    now += 999;
    registry.touch('busy');
    now += 1;
    expect(await registry.evictIdle()).toBe(1);
    expect(idle.closed).toEqual({ transport: true, server: true });
    expect(busy.closed).toEqual({ transport: false, server: false });
    expect(registry.touch('idle')).toBeUndefined();
    expect(registry.size).toBe(1);
  });

  it('gives Retry-After as the time until the least recently used session may be evicted', () => {
    const registry = make(1, 60_000);
    registry.tryReserve();
    registry.register(newSession('x'));
    now += 20_000;
    expect(registry.retryAfterMs()).toBe(40_000);
    now += 59_000;
    expect(registry.retryAfterMs()).toBe(1000);
  });

  it('closeAll closes every session and stops the sweep', async () => {
    const registry = make(5);
    const sessions = ['p', 'q', 'r'].map(newSession);
    for (const s of sessions) {
      registry.tryReserve();
      await s.server.connect(s.transport);
      registry.register(s);
    }
    await registry.closeAll();
    expect(registry.size).toBe(0);
    expect(sessions.every((s) => s.closed.transport && s.closed.server)).toBe(true);
  });

  it('runs the sweep on its own timer', async () => {
    const registry = new McpSessionRegistry({ maxSessions: 5, ttlMs: 1000, sweepIntervalMs: 20 });
    registries.push(registry);
    const s = newSession('timed');
    registry.tryReserve();
    registry.register(s);
    const started = Date.now();
    while (registry.size > 0 && Date.now() - started < 5000) await new Promise((r) => setTimeout(r, 25));
    expect(registry.size).toBe(0);
  });
});
