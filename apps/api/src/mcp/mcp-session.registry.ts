/**
 * The live MCP transport sessions of this instance: one StreamableHTTPServerTransport and one
 * McpServer per session (never shared: GHSA-345p-7cg4-v4c7), a cap on how many may exist at once and
 * on how many one client address may hold (so one address cannot take every slot), and an idle sweep.
 * The SDK keeps no registry and never evicts, and a client that never sends DELETE would otherwise
 * pin its transport, server and open SSE stream for the life of the process (engineering anchors
 * §2.3), so eviction closes both the transport and the server.
 */
import { type McpReservation, type McpSession, type McpSessionStore } from './mcp-session.store.js';

export type { McpSession } from './mcp-session.store.js';

export interface McpSessionRegistryOptions {
  /** Maximum sessions, counting initializations still in flight. */
  readonly maxSessions: number;
  /** Maximum sessions per client address, counting its initializations still in flight; default maxSessions. */
  readonly maxSessionsPerAddress?: number;
  /** Idle time after which a session is evicted. */
  readonly ttlMs: number;
  /**
   * When the cap is full, an initialize takes the slot of the least recently used session idle at
   * least this long (default: never, i.e. `ttlMs`). Sessions hold no state of ours and MCP clients
   * initialize again on 404, so under pressure an idle session ends early rather than every new
   * client being refused until the TTL (2 s of initializes from 11 addresses could hold the whole cap
   * for 30 minutes).
   */
  readonly reclaimIdleMs?: number;
  /** How often the idle sweep runs; default ttl/4 clamped to 50 ms..60 s. */
  readonly sweepIntervalMs?: number;
  /**
   * Time source for idle times (ms, any origin); default monotonic time (`performance.now`). It was the
   * wall clock: stepped back a day, idle sessions were neither swept nor reclaimed and a full instance
   * said Retry-After 86394 (a probe); stepped ahead, sessions in use ended.
   */
  readonly now?: () => number;
}

export class McpSessionRegistry implements McpSessionStore {
  private readonly sessions = new Map<string, McpSession>();
  /** Initialize requests admitted but not yet turned into a session (so concurrent ones cannot overshoot the cap). */
  private reserved = 0;
  private streamsEnded = false;
  /** Sessions plus admissions in flight per client address; an address leaves the map at zero. */
  private readonly perAddress = new Map<string, number>();
  private readonly now: () => number;
  private readonly sweepTimer: NodeJS.Timeout;

  constructor(private readonly options: McpSessionRegistryOptions) {
    this.now = options.now ?? (() => performance.now());
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

  get maxSessionsPerAddress(): number {
    return this.options.maxSessionsPerAddress ?? this.options.maxSessions;
  }

  /** Sessions and admissions in flight held by one client address. */
  heldBy(address: string): number {
    return this.perAddress.get(address) ?? 0;
  }

  tryReserve(address: string): McpReservation {
    const full = this.sessions.size + this.reserved >= this.options.maxSessions;
    const reclaimable = full ? this.reclaimableSession() : undefined;
    if (full && reclaimable === undefined) return 'instance-full';
    // An address at its cap takes only its own slot (below), never the instance's reclaimable session:
    // that may be its own connected one (a review of 1.14.0: with the instance full too, the address's
    // connected session went through the instance's reclaim while its abandoned one stayed).
    if (this.heldBy(address) >= this.maxSessionsPerAddress) {
      // The address's own least recently used session idle for `reclaimIdleMs` gives its slot, and the
      // instance's: no other address's session is then taken. A client that never sends DELETE (the
      // SDK's Client.close() does not) had filled its cap with sessions it had left and was refused until
      // they idled out, 30 min (a fleet chaos probe). Never another address's slot, never one serving.
      // Nor one whose client is still connected, its event stream open (a review: a long-lived agent idle
      // for a minute lost its session to its own address's task clients, whose abandoned ones stayed).
      const own = this.leastRecentlyUsedOf(address, { listening: false });
      if (own === undefined || own.lastSeenMs > this.now() - this.reclaimIdleMs) return 'address-full';
      void this.close(own.id);
    } else if (reclaimable !== undefined) void this.close(reclaimable.id);
    this.reserved += 1;
    this.perAddress.set(address, this.heldBy(address) + 1);
    return 'admitted';
  }

  release(address: string): void {
    if (this.reserved === 0) return;
    this.reserved -= 1;
    this.dropAddress(address);
  }

  /**
   * Milliseconds until an initialize refused so is likely admitted (for Retry-After): when the least
   * recently used session serving nothing, of the instance or of the address, may be reclaimed.
   */
  retryAfterMs(refusal: Exclude<McpReservation, 'admitted'> = 'instance-full', address?: string): number {
    if (refusal === 'address-full') {
      if (address === undefined) return 1000;
      const reclaimable = this.leastRecentlyUsedOf(address, { listening: false });
      if (reclaimable !== undefined)
        return Math.max(1000, reclaimable.lastSeenMs + this.reclaimIdleMs - this.now());
      // Every session of the address connected (streams open): one frees when the sweep ends it.
      const oldest = this.leastRecentlyUsedOf(address);
      // Without a session: only admissions in flight, which settle within their request.
      return oldest === undefined
        ? 1000
        : Math.max(1000, oldest.lastSeenMs + this.options.ttlMs - this.now());
    }
    const oldest = this.leastRecentlyUsedIdle();
    // Every session serving: a slot frees no sooner than one of them has ended its POST.
    if (oldest === undefined) return 1000;
    return Math.max(1000, oldest.lastSeenMs + this.reclaimIdleMs - this.now());
  }

  private get reclaimIdleMs(): number {
    return Math.min(this.options.reclaimIdleMs ?? this.options.ttlMs, this.options.ttlMs);
  }

  /**
   * Sessions are kept in order of last use (touch moves one to the end), so the least recently used
   * one serving nothing is the first such: the cap's reclaim reads past the sessions serving now only,
   * not the whole map.
   */
  private leastRecentlyUsedIdle(): McpSession | undefined {
    for (const session of this.sessions.values()) if (session.serving === 0) return session;
    return undefined;
  }

  /**
   * The least recently used session of one address serving nothing (the map is in order of last use),
   * and with `listening: false` none of whose event streams is open: the one its cap may end, and whose
   * idle time Retry-After counts (a review: one serving was taken).
   */
  private leastRecentlyUsedOf(
    address: string,
    filter: { readonly listening?: false } = {},
  ): McpSession | undefined {
    for (const session of this.sessions.values())
      if (
        session.address === address &&
        session.serving === 0 &&
        (filter.listening === undefined || session.listening === 0)
      )
        return session;
    return undefined;
  }

  /**
   * The least recently used session idle for `reclaimIdleMs` and serving nothing. Before, a POST served
   * for longer than that (a slow read) counted as idle: another client's initialize took its slot, and
   * the POST ended 200 with an empty stream and no answer (a probe).
   */
  private reclaimableSession(): McpSession | undefined {
    const oldest = this.leastRecentlyUsedIdle();
    return oldest !== undefined && oldest.lastSeenMs <= this.now() - this.reclaimIdleMs ? oldest : undefined;
  }

  register(session: Omit<McpSession, 'lastSeenMs' | 'serving' | 'listening'>): void {
    // The admission's count for its address now stands for the session.
    if (this.reserved > 0) this.reserved -= 1;
    this.sessions.set(session.id, { ...session, lastSeenMs: this.now(), serving: 0, listening: 0 });
  }

  serve(session: McpSession): () => void {
    return this.count(session, 'serving', () => {
      // Idle from the end of its last request on (a session closed meanwhile is not brought back).
      if (this.sessions.get(session.id) === session) this.markUsed(session);
    });
  }

  listen(session: McpSession): () => void {
    return this.count(session, 'listening');
  }

  /** Counts one request of `session` in `field` until the returned function is called (once). */
  private count(session: McpSession, field: 'serving' | 'listening', ended?: () => void): () => void {
    session[field] += 1;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      session[field] -= 1;
      ended?.();
    };
  }

  touch(id: string): McpSession | undefined {
    const session = this.sessions.get(id);
    if (!session) return undefined;
    // Idle past its TTL is ended, whether or not the sweep has come round yet (it runs every
    // min(60 s, TTL/4)): a request must not revive it.
    if (session.serving === 0 && this.isIdlePastTtl(session)) {
      void this.close(id);
      return undefined;
    }
    this.markUsed(session);
    return session;
  }

  forget(id: string): void {
    this.take(id);
  }

  /** Removes a session and closes its transport and server. Safe to call twice. */
  async close(id: string): Promise<void> {
    const session = this.take(id);
    if (session) await closeQuietly(session);
  }

  /** Closes every session idle for longer than the TTL and serving nothing; returns how many were evicted. */
  async evictIdle(): Promise<number> {
    const idle = [...this.sessions.values()].filter((s) => s.serving === 0 && this.isIdlePastTtl(s));
    await Promise.all(idle.map((s) => this.close(s.id)));
    return idle.length;
  }

  /** Stops the sweep and closes every session (application shutdown). */
  async closeAll(): Promise<void> {
    clearInterval(this.sweepTimer);
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id)));
  }

  /** Ends every session's event stream (GET), keeping the sessions (the drain; see DrainListeners). */
  endEventStreams(): void {
    this.streamsEnded = true;
    for (const session of this.sessions.values()) session.transport.closeStandaloneSSEStream();
  }

  /**
   * Whether the drain has ended the event streams: a stream opened again after it (on a keep-alive
   * connection, before the idle sweep closed it) held the drain to its timeout (a review).
   */
  get eventStreamsEnded(): boolean {
    return this.streamsEnded;
  }

  private isIdlePastTtl(session: McpSession): boolean {
    return session.lastSeenMs <= this.now() - this.options.ttlMs;
  }

  private markUsed(session: McpSession): void {
    session.lastSeenMs = this.now();
    // Re-inserted: the map's order is the order of last use.
    this.sessions.delete(session.id);
    this.sessions.set(session.id, session);
  }

  /** Takes a session out of the registry (and its address's count); undefined when already gone. */
  private take(id: string): McpSession | undefined {
    const session = this.sessions.get(id);
    if (!session) return undefined;
    this.sessions.delete(id);
    this.dropAddress(session.address);
    return session;
  }

  private dropAddress(address: string): void {
    const held = this.heldBy(address);
    if (held <= 1) this.perAddress.delete(address);
    else this.perAddress.set(address, held - 1);
  }
}

async function closeQuietly(session: McpSession): Promise<void> {
  // Closing the transport ends its SSE streams; closing the server drops its handlers and closures.
  await session.transport.close().catch(() => undefined);
  await session.server.close().catch(() => undefined);
}
