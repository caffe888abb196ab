/**
 * The session registry with real SDK transports and servers: the cap counts in-flight
 * initializations, eviction closes transport and server (not only the map entry), and closing
 * everything leaves nothing registered.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { McpSessionRegistry } from './mcp-session.registry.js';

const A = '127.0.0.1';

function newSession(id: string, address = A) {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => id });
  const server = new McpServer({ name: 't', version: '0' });
  const closed = { transport: false, server: false };
  transport.onclose = () => (closed.transport = true);
  server.server.onclose = () => (closed.server = true);
  return { id, address, transport, server, closed };
}

describe('McpSessionRegistry', () => {
  let now = 1_000_000;
  const registries: McpSessionRegistry[] = [];
  const make = (maxSessions: number, ttlMs = 60_000, reclaimIdleMs?: number) => {
    const registry = new McpSessionRegistry({
      maxSessions,
      ttlMs,
      reclaimIdleMs,
      sweepIntervalMs: 3_600_000,
      now: () => now,
    });
    registries.push(registry);
    return registry;
  };
  afterAll(async () => Promise.all(registries.map((r) => r.closeAll())));

  it('refuses a reservation once sessions plus in-flight initializations reach the cap', () => {
    const registry = make(2);
    expect(registry.tryReserve(A)).toBe('admitted');
    expect(registry.tryReserve(A)).toBe('admitted');
    expect(registry.tryReserve(A)).toBe('instance-full');
    registry.release(A);
    expect(registry.pending).toBe(1);
    expect(registry.tryReserve(A)).toBe('admitted');
  });

  it('caps the sessions of one address below the instance cap; another address still gets one', async () => {
    const registry = new McpSessionRegistry({
      maxSessions: 5,
      maxSessionsPerAddress: 2,
      ttlMs: 60_000,
      sweepIntervalMs: 3_600_000,
      now: () => now,
    });
    registries.push(registry);
    const B = '127.0.0.2';
    expect(registry.tryReserve(A)).toBe('admitted');
    registry.register(newSession('a1'));
    expect(registry.tryReserve(A)).toBe('admitted'); // in flight: counts too
    expect(registry.tryReserve(A)).toBe('address-full');
    expect(registry.tryReserve(B)).toBe('admitted');
    expect(registry.heldBy(A)).toBe(2);
    // A failed initialize gives its slot back to its own address only.
    registry.release(A);
    expect(registry.heldBy(A)).toBe(1);
    expect(registry.heldBy(B)).toBe(1);
    expect(registry.tryReserve(A)).toBe('admitted');
    registry.register(newSession('a2'));
    expect(registry.tryReserve(A)).toBe('address-full');
    // Closing (DELETE, eviction) or forgetting a session frees its address's slot, once.
    await registry.close('a1');
    await registry.close('a1');
    registry.forget('a1');
    expect(registry.heldBy(A)).toBe(1);
    expect(registry.tryReserve(A)).toBe('admitted');
    registry.release(A);
    registry.forget('a2');
    expect(registry.heldBy(A)).toBe(0);
  });

  it('turns a reservation into a session and frees the slot when the session closes', async () => {
    const registry = make(1);
    expect(registry.tryReserve(A)).toBe('admitted');
    const s = newSession('a');
    registry.register(s);
    expect(registry.size).toBe(1);
    expect(registry.pending).toBe(0);
    expect(registry.tryReserve(A)).toBe('instance-full');
    await registry.close('a');
    expect(registry.size).toBe(0);
    expect(registry.tryReserve(A)).toBe('admitted');
  });

  // Found by a probe: 2 s of initializes from 11 addresses held the whole cap for the 30-minute TTL.
  it('when full, takes the slot of the least recently used session idle for reclaimIdleMs, never a fresher one', async () => {
    const registry = make(2, 60_000, 5_000);
    const [first, second] = [newSession('first'), newSession('second', '127.0.0.2')];
    for (const s of [first, second]) {
      expect(registry.tryReserve(s.address)).toBe('admitted');
      await s.server.connect(s.transport);
      registry.register(s);
      now += 1_000;
    }
    registry.touch('first'); // now 'second' is the least recently used
    now += 3_000;
    expect(registry.tryReserve('127.0.0.3')).toBe('instance-full'); // 'second' idle 4 s < 5 s
    expect(registry.retryAfterMs()).toBe(1_000);
    now += 1_000;
    expect(registry.tryReserve('127.0.0.3')).toBe('admitted');
    expect(registry.touch('second')).toBeUndefined();
    expect(registry.touch('first')).toBeDefined();
    await new Promise((resolve) => setImmediate(resolve));
    expect(second.closed).toEqual({ transport: true, server: true });
    expect(first.closed).toEqual({ transport: false, server: false });
    expect(registry.heldBy('127.0.0.2')).toBe(0);
    // An address at its own cap takes no other address's slot, but may take its own idle one.
    const capped = new McpSessionRegistry({
      maxSessions: 2,
      maxSessionsPerAddress: 1,
      ttlMs: 60_000,
      reclaimIdleMs: 1,
      sweepIntervalMs: 3_600_000,
      now: () => now,
    });
    registries.push(capped);
    const B = '127.0.0.2';
    for (const [id, address] of [
      ['theirs', B],
      ['own', A],
    ]) {
      expect(capped.tryReserve(address)).toBe('admitted');
      capped.register(newSession(id, address));
      now += 1;
    }
    now += 10;
    capped.touch('own'); // A's own session fresh: only B's is idle
    expect(capped.tryReserve(A)).toBe('address-full'); // the least recently used is B's
    expect(capped.size).toBe(2);
    expect(capped.tryReserve(B)).toBe('admitted'); // B's own idle session makes room
    expect(capped.touch('theirs')).toBeUndefined();
    expect(capped.heldBy(B)).toBe(1);
  });

  it('evicts only sessions idle for the TTL, closing both their transport and server', async () => {
    const registry = make(10, 1000);
    const idle = newSession('idle');
    const busy = newSession('busy');
    for (const s of [idle, busy]) {
      registry.tryReserve(A);
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
    registry.tryReserve(A);
    registry.register(newSession('x'));
    now += 20_000;
    expect(registry.retryAfterMs()).toBe(40_000);
    now += 59_000;
    expect(registry.retryAfterMs()).toBe(1000);
  });

  // A probe: an address at its own cap was told the instance's reclaim time, and refused again after it.
  // Since a fleet chaos probe it is told when its own least recently used session may be reclaimed.
  it('gives an address at its own cap Retry-After as the time until its least recently used session may be reclaimed', () => {
    const registry = new McpSessionRegistry({
      maxSessions: 10,
      maxSessionsPerAddress: 2,
      ttlMs: 60_000,
      reclaimIdleMs: 3_000,
      sweepIntervalMs: 3_600_000,
      now: () => now,
    });
    registries.push(registry);
    for (const [id, address] of [
      ['a1', A],
      ['b1', '127.0.0.2'],
      ['a2', A],
    ]) {
      expect(registry.tryReserve(address)).toBe('admitted');
      registry.register(newSession(id, address));
      now += 1_000;
    }
    registry.touch('a1'); // a2 is now A's least recently used, idle 1 s
    expect(registry.tryReserve(A)).toBe('address-full');
    expect(registry.retryAfterMs('address-full', A)).toBe(3_000 - 1_000);
    // Retrying at the time given is admitted: a2 ends then, not at the sweep; B's b1, idle longer, stays.
    now += 2_000;
    expect(registry.tryReserve(A)).toBe('admitted');
    expect(registry.touch('a2')).toBeUndefined();
    expect(registry.touch('a1')).toBeDefined();
    expect(registry.touch('b1')).toBeDefined();
    expect(registry.heldBy(A)).toBe(2);
  });

  // A fleet chaos probe: the SDK's Client.close() sends no DELETE, so an agent that starts a client per
  // task filled its address's cap with sessions it had left, and every initialize was refused for the
  // 30 min idle TTL. Its own least recently used session idle for reclaimIdleMs now gives its slot.
  it("an address at its own cap takes the slot of its own session idle for reclaimIdleMs, never another address's", () => {
    const registry = new McpSessionRegistry({
      maxSessions: 10,
      maxSessionsPerAddress: 2,
      ttlMs: 1_800_000,
      reclaimIdleMs: 60_000,
      sweepIntervalMs: 3_600_000,
      now: () => now,
    });
    registries.push(registry);
    for (const [id, address] of [
      ['left-1', A],
      ['left-2', A],
      ['theirs', '127.0.0.2'],
    ]) {
      expect(registry.tryReserve(address)).toBe('admitted');
      registry.register(newSession(id, address));
      now += 1_000;
    }
    now += 29_000; // left-1 idle 32 s, left-2 31 s, theirs 30 s
    expect(registry.tryReserve(A)).toBe('address-full');
    expect(registry.retryAfterMs('address-full', A)).toBe(28_000);
    now += 28_000; // left-1 idle 60 s
    expect(registry.tryReserve(A)).toBe('admitted');
    expect(registry.touch('left-1')).toBeUndefined();
    expect(registry.touch('left-2')).toBeDefined();
    expect(registry.touch('theirs')).toBeDefined();
    expect(registry.heldBy(A)).toBe(2);
    expect(registry.size + registry.pending).toBe(3);
  });

  // A review: a session whose event stream is open (its client still connected) was taken by its own
  // address's next initialize once idle for reclaimIdleMs; it is spared, and Retry-After then counts to
  // the sweep's end of the oldest such session.
  it('an address at its cap spares its sessions whose event streams are open; Retry-After counts to their TTL', () => {
    const registry = new McpSessionRegistry({
      maxSessions: 10,
      maxSessionsPerAddress: 2,
      ttlMs: 600_000,
      reclaimIdleMs: 60_000,
      sweepIntervalMs: 3_600_000,
      now: () => now,
    });
    registries.push(registry);
    const start = now;
    for (const id of ['live-1', 'live-2']) {
      expect(registry.tryReserve(A)).toBe('admitted');
      registry.register(newSession(id));
    }
    const [ended1, ended2] = ['live-1', 'live-2'].map((id) => registry.listen(registry.touch(id)!));
    now += 120_000;
    expect(registry.tryReserve(A)).toBe('address-full');
    expect(registry.retryAfterMs('address-full', A)).toBe(start + 600_000 - now);
    ended2();
    ended2(); // a second call changes nothing
    expect(registry.tryReserve(A)).toBe('admitted'); // live-2's stream ended: it is taken
    expect(registry.touch('live-2')).toBeUndefined();
    expect(registry.touch('live-1')).toBeDefined();
    ended1();
  });

  // A review of 1.14.0: with the instance's cap full too, the instance's least recently used idle session
  // was taken though it was the address's own connected one (event stream open), while the same
  // address's abandoned session, with no stream, stayed: the address at its cap took a connected one.
  it("an address at its cap with the instance full takes its own abandoned session's slot, not its connected one's", () => {
    const registry = new McpSessionRegistry({
      maxSessions: 2,
      maxSessionsPerAddress: 2,
      ttlMs: 600_000,
      reclaimIdleMs: 60_000,
      sweepIntervalMs: 3_600_000,
      now: () => now,
    });
    registries.push(registry);
    for (const id of ['connected', 'abandoned']) {
      expect(registry.tryReserve(A)).toBe('admitted');
      registry.register(newSession(id));
    }
    const ended = registry.listen(registry.touch('connected')!);
    registry.touch('abandoned'); // 'connected' is the least recently used
    now += 120_000;
    expect(registry.tryReserve(A)).toBe('admitted');
    expect(registry.touch('connected')).toBeDefined();
    expect(registry.touch('abandoned')).toBeUndefined();
    ended();
  });

  // A probe: a POST served for longer than reclaimIdleMs (a slow read) counted as idle; another client's
  // initialize took its slot, and the POST ended 200 with an empty stream and no answer.
  it('a session serving a POST is neither reclaimed for the cap nor swept, however long it serves; it is idle from the end on', async () => {
    const registry = make(2, 10_000, 1_000);
    const [slow, other] = [newSession('slow'), newSession('other', '127.0.0.2')];
    for (const s of [slow, other]) {
      expect(registry.tryReserve(s.address)).toBe('admitted');
      await s.server.connect(s.transport);
      registry.register(s);
    }
    registry.touch('other'); // 'slow' is the least recently used
    const served = registry.serve(registry.touch('slow')!);
    registry.touch('other');
    now += 20_000; // past the reclaim time and the TTL for both
    // The cap takes the idle one, not the one serving, though it is the least recently used.
    expect(registry.tryReserve('127.0.0.3')).toBe('admitted');
    expect(registry.touch('other')).toBeUndefined();
    registry.release('127.0.0.3');
    now += 20_000;
    expect(await registry.evictIdle()).toBe(0);
    expect(registry.tryReserve('127.0.0.3')).toBe('admitted'); // room: 'other' is gone
    expect(registry.tryReserve('127.0.0.4')).toBe('instance-full'); // and 'slow' is serving
    registry.release('127.0.0.3');
    // An address at its own cap does not end its own session that is serving either.
    const capped = new McpSessionRegistry({
      maxSessions: 5,
      maxSessionsPerAddress: 1,
      ttlMs: 10_000,
      sweepIntervalMs: 3_600_000,
      now: () => now,
    });
    registries.push(capped);
    const own = newSession('own');
    capped.tryReserve(A);
    capped.register(own);
    const ownServed = capped.serve(capped.touch('own')!);
    now += 20_000;
    expect(capped.tryReserve(A)).toBe('address-full');
    ownServed();
    ownServed(); // a second call changes nothing
    expect(capped.touch('own')?.serving).toBe(0);
    // Served now: idle from the end of the POST, not from its start.
    served();
    expect(registry.touch('slow')?.serving).toBe(0);
    now += 500;
    expect(await registry.evictIdle()).toBe(0);
    expect(registry.tryReserve('127.0.0.4')).toBe('admitted'); // one slot free since 'other' left
    expect(registry.tryReserve('127.0.0.5')).toBe('instance-full'); // 'slow' idle 0.5 s < 1 s
    now += 1_000;
    expect(registry.tryReserve('127.0.0.5')).toBe('admitted');
    expect(registry.touch('slow')).toBeUndefined();
  });

  // A review: Retry-After counted the idle time of the least recently used session though it was
  // serving (never reclaimed), so a client retried too early and was refused again.
  it('Retry-After counts from the least recently used session serving nothing', async () => {
    const registry = make(2, 60_000, 10_000);
    const [slow, other] = [newSession('slow-r'), newSession('other-r', '127.0.0.2')];
    for (const s of [slow, other]) {
      registry.tryReserve(s.address);
      await s.server.connect(s.transport);
      registry.register(s);
    }
    const served = registry.serve(registry.touch('slow-r')!);
    now += 4_000;
    registry.touch('other-r');
    now += 1_000;
    expect(registry.tryReserve('127.0.0.3')).toBe('instance-full');
    // 'other-r' is reclaimable 10 s after its last use, 9 s from now ('slow-r' would say 5 s).
    expect(registry.retryAfterMs('instance-full')).toBe(9_000);
    served();
    // The address cap likewise: an address's session serving is not the one that idles out.
    const capped = new McpSessionRegistry({
      maxSessions: 5,
      maxSessionsPerAddress: 2,
      ttlMs: 60_000,
      sweepIntervalMs: 3_600_000,
      now: () => now,
    });
    registries.push(capped);
    for (const id of ['busy-a', 'idle-a']) {
      capped.tryReserve(A);
      capped.register(newSession(id));
    }
    const busy = capped.serve(capped.touch('busy-a')!);
    now += 4_000;
    capped.touch('idle-a');
    now += 1_000;
    expect(capped.tryReserve(A)).toBe('address-full');
    expect(capped.retryAfterMs('address-full', A)).toBe(59_000);
    busy();
  });

  // MCP_SESSION_RECLAIM_IDLE_MS may be set past MCP_SESSION_TTL_MS (config allows up to a day): the
  // reclaim then counts the TTL, so a session idle past it (not yet swept) frees its slot at once.
  it('a reclaim time past the TTL counts as the TTL: for the cap and for Retry-After', () => {
    const registry = make(1, 10_000, 60_000);
    registry.tryReserve(A);
    registry.register(newSession('old'));
    now += 4_000;
    expect(registry.retryAfterMs('instance-full')).toBe(6_000);
    now += 6_000;
    expect(registry.tryReserve('127.0.0.2')).toBe('admitted');
    expect(registry.touch('old')).toBeUndefined();
  });

  // A second POST reaching a session while a first is still served past the TTL (a slow read): the
  // touch must not end the session under the first.
  it('a touch does not end a session serving a POST, however long it has been served', () => {
    const registry = make(10, 1_000);
    registry.tryReserve(A);
    registry.register(newSession('busy'));
    const served = registry.serve(registry.touch('busy')!);
    now += 5_000;
    expect(registry.touch('busy')).toBeDefined();
    served();
    expect(registry.size).toBe(1);
  });

  // The drain (DrainListeners) refuses a GET for a new stream once this is set.
  it('endEventStreams keeps the sessions and says the streams have ended', () => {
    const registry = make(10);
    registry.tryReserve(A);
    registry.register(newSession('s'));
    expect(registry.eventStreamsEnded).toBe(false);
    registry.endEventStreams();
    expect(registry.eventStreamsEnded).toBe(true);
    expect(registry.touch('s')).toBeDefined();
  });

  it('closeAll closes every session and stops the sweep', async () => {
    const registry = make(5);
    const sessions = ['p', 'q', 'r'].map((id) => newSession(id));
    for (const s of sessions) {
      registry.tryReserve(A);
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
    registry.tryReserve(A);
    registry.register(s);
    const started = Date.now();
    while (registry.size > 0 && Date.now() - started < 5000) await new Promise((r) => setTimeout(r, 25));
    expect(registry.size).toBe(0);
  });
});
