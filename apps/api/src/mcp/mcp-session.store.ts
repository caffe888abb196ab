/**
 * What `/mcp` needs from the place its sessioned (2025-era) MCP sessions live. Today that is the
 * in-process registry; keeping the controller on this small interface lets a shared store (sessions
 * visible to every instance behind a balancer) replace it without touching the routing.
 */
import { type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export interface McpSession {
  readonly id: string;
  /** The client address that opened it (the per-address cap counts by it). */
  readonly address: string;
  readonly transport: StreamableHTTPServerTransport;
  readonly server: McpServer;
  /** Unix ms of the last request routed to this session, or of the end of the last one served. */
  lastSeenMs: number;
  /** POSTs of this session being served now: a session serving one is not idle, whatever its `lastSeenMs`. */
  serving: number;
  /**
   * Event streams (GET) of this session open now: its client is still connected, so an address at its
   * cap does not take its slot (the idle sweep still ends it past its TTL: a stream can outlive its client).
   */
  listening: number;
}

/** The answer to an initialize: admitted, or which cap refused it. */
export type McpReservation = 'admitted' | 'instance-full' | 'address-full';

export interface McpSessionStore {
  /** Maximum sessions at once, counting initializations in flight. */
  readonly maxSessions: number;
  /** Sessions registered now (initialized and not yet closed). */
  readonly size: number;
  /** Maximum sessions one client address may hold at once, counting its initializations in flight. */
  readonly maxSessionsPerAddress: number;
  /** Admits one initialize from `address` if both caps allow; pair an admission with `register` or `release`. */
  tryReserve(address: string): McpReservation;
  /** Returns an admission of `address` that did not become a session. */
  release(address: string): void;
  /** Turns an admission into a registered session. */
  register(session: Omit<McpSession, 'lastSeenMs' | 'serving' | 'listening'>): void;
  /** The session with this id, marking it as used; undefined when unknown, closed, or idle past its TTL (then ended). */
  touch(id: string): McpSession | undefined;
  /**
   * Marks one POST of `session` as being served until the returned function is called, which marks the
   * session used then: neither the idle sweep nor the cap's reclaim ends a session while it serves.
   */
  serve(session: McpSession): () => void;
  /** Marks an event stream (GET) of `session` as open until the returned function is called. */
  listen(session: McpSession): () => void;
  /** Forgets a session whose transport has already closed. */
  forget(id: string): void;
  /** Removes a session and closes its transport and server. */
  close(id: string): Promise<void>;
  /** Milliseconds until an initialize refused for `refusal` (from `address`) is likely admitted (for Retry-After). */
  retryAfterMs(refusal?: Exclude<McpReservation, 'admitted'>, address?: string): number;
  /** Closes every session (application shutdown). */
  closeAll(): Promise<void>;
  /**
   * Ends every session's event stream (GET), keeping the sessions: the drain, once no connection is
   * accepted. From then on no stream is opened (`eventStreamsEnded`).
   */
  endEventStreams(): void;
  /** Whether `endEventStreams` has run: a GET for a new stream is refused (503). */
  readonly eventStreamsEnded: boolean;
}

/**
 * The fleet-wide directory of sessioned MCP sessions (STORE=redis): with it, any instance serves any
 * session (our tools and resources keep no per-session state, so a transport made for one request
 * serves it), and the caps, the idle TTL and DELETE hold for the whole fleet.
 */
export interface McpFleetSessions {
  /** Registers session `id` of `address` if both fleet-wide caps allow. */
  admit(id: string, address: string): Promise<McpReservation>;
  /** Marks a live session as used; false when unknown, idle-expired or deleted. */
  touch(id: string): Promise<boolean>;
  /**
   * Marks a live session as serving a POST, `request` (an id unique to it): not idle (no cap's reclaim
   * takes it) until `served` at its end, or a lease bounding an end never told; false when unknown,
   * idle-expired or deleted.
   */
  serve(id: string, request: string): Promise<boolean>;
  /**
   * Marks the end of the POST `request` of a live session: used from now on, unless another POST of it is
   * still served (it stays used until that one's end); false when unknown, idle-expired or deleted.
   */
  served(id: string, request: string): Promise<boolean>;
  /** Ends a session for the whole fleet; false when it did not exist. */
  remove(id: string): Promise<boolean>;
  /** Sessions of the whole fleet used within the idle TTL. */
  countLive(): Promise<number>;
  /** Milliseconds until an initialize refused with `refusal` from `address` may be admitted. */
  retryAfterMs(refusal: Exclude<McpReservation, 'admitted'>, address: string): Promise<number>;
}
