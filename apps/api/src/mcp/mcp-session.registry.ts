/**
 * The live MCP transport sessions of this instance: one StreamableHTTPServerTransport and one
 * McpServer per session (never shared: GHSA-345p-7cg4-v4c7), a cap on how many may exist at once,
 * and an idle sweep. The SDK keeps no registry and never evicts, and a client that never sends DELETE
 * would otherwise pin its transport, server and open SSE stream for the life of the process
 * (engineering anchors §2.3), so eviction closes both the transport and the server.
 */
import { type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export interface McpSession {
  readonly id: string;
  readonly transport: StreamableHTTPServerTransport;
  readonly server: McpServer;
  /** Unix ms of the last request routed to this session. */
  lastSeenMs: number;
}

export interface McpSessionRegistryOptions {
  /** Maximum sessions, counting initializations still in flight. */
  readonly maxSessions: number;
  /** Idle time after which a session is evicted. */
  readonly ttlMs: number;
  /** How often the idle sweep runs; default ttl/4 clamped to 50 ms..60 s. */
  readonly sweepIntervalMs?: number;
  /** Time source; default Date.now. */
  readonly now?: () => number;
}

export class McpSessionRegistry {
  private readonly sessions = new Map<string, McpSession>();
  /** Initialize requests admitted but not yet turned into a session (so concurrent ones cannot overshoot the cap). */
  private reserved = 0;
  private readonly now: () => number;
  private readonly sweepTimer: NodeJS.Timeout;

  constructor(private readonly options: McpSessionRegistryOptions) {
    this.now = options.now ?? Date.now;
    const interval = options.sweepIntervalMs ?? Math.min(60_000, Math.max(50, Math.floor(options.ttlMs / 4)));
    this.sweepTimer = setInterval(() => void this.evictIdle(), interval);
    // The sweep must never keep the process alive on its own.
    this.sweepTimer.unref();
  }

  /** Sessions currently registered (initialized and not yet closed). */
  get size(): number {
    return this.sessions.size;
  }

  /** Initializations admitted and still in flight. */
  get pending(): number {
    return this.reserved;
  }

  get maxSessions(): number {
    return this.options.maxSessions;
  }

  /** Admits one initialize request if the cap allows; pair with `register` or `release`. */
  tryReserve(): boolean {
    if (this.sessions.size + this.reserved >= this.options.maxSessions) return false;
    this.reserved += 1;
    return true;
  }

  /** Returns a reservation that did not become a session. */
  release(): void {
    if (this.reserved > 0) this.reserved -= 1;
  }

  /** Milliseconds until the least recently used session becomes evictable (for Retry-After). */
  retryAfterMs(): number {
    let oldest = Infinity;
    for (const session of this.sessions.values()) oldest = Math.min(oldest, session.lastSeenMs);
    if (oldest === Infinity) return 1000;
    return Math.max(1000, oldest + this.options.ttlMs - this.now());
  }

  /** Turns a reservation into a registered session. */
  register(session: Omit<McpSession, 'lastSeenMs'>): void {
    this.release();
    this.sessions.set(session.id, { ...session, lastSeenMs: this.now() });
  }

  /** The session with this id, marking it as used; undefined when unknown or closed. */
  touch(id: string): McpSession | undefined {
    const session = this.sessions.get(id);
    if (session) session.lastSeenMs = this.now();
    return session;
  }

  /** Forgets a session without closing it (its transport has already closed). */
  forget(id: string): void {
    this.sessions.delete(id);
  }

  /** Removes a session and closes its transport and server. Safe to call twice. */
  async close(id: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    await closeQuietly(session);
  }

  /** Closes every session idle for longer than the TTL; returns how many were evicted. */
  async evictIdle(): Promise<number> {
    const cutoff = this.now() - this.options.ttlMs;
    const idle = [...this.sessions.values()].filter((s) => s.lastSeenMs <= cutoff);
    await Promise.all(idle.map((s) => this.close(s.id)));
    return idle.length;
  }

  /** Stops the sweep and closes every session (application shutdown). */
  async closeAll(): Promise<void> {
    clearInterval(this.sweepTimer);
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id)));
  }
}

async function closeQuietly(session: McpSession): Promise<void> {
  // Closing the transport ends its SSE streams; closing the server drops its handlers and closures.
  await session.transport.close().catch(() => undefined);
  await session.server.close().catch(() => undefined);
}
