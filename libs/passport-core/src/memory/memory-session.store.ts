/**
 * @module memory/memory-session.store
 * Single-instance SessionStore on a Map, capped at `maxEntries`. When full, a new session first makes
 * room by dropping closed and expired sessions; if none can go, `create` throws
 * `SessionCapacityError` (an open session of another passport is never evicted). A passport holds at
 * most `maxOpenPerPassport` open sessions: a login beyond it closes that passport's own oldest.
 *
 * Semantics shared with the SQLite/Redis adapters: a session is open while `closedAtMs` is null and
 * `expiresAtMs > nowMs`; `sweep(nowMs)` deletes every session that is closed or has
 * `expiresAtMs <= nowMs`; `list` is newest first by `createdAtMs` and `total` counts every stored session.
 */
import {
  DEFAULT_MAX_OPEN_SESSIONS_PER_PASSPORT,
  SESSION_SUPERSEDED,
  SessionCapacityError,
  type SessionPage,
  type SessionRecord,
  type SyncSessionStore,
} from '../ports/session-store.port.js';
import { positiveCap } from '../ports/store-cap.js';
import { uncappedRemoval, type RemovalHorizon } from '../ports/removal-horizon.js';

export interface MemorySessionStoreOptions {
  /** Maximum sessions held (default 100 000). */
  readonly maxEntries?: number | undefined;
  /** Open sessions one passport may hold (default 100). */
  readonly maxOpenPerPassport?: number | undefined;
  /**
   * Caps the time expired sessions are deleted by (default: none). A server on the system clock passes
   * `createRemovalHorizon()`: a sweep while the wall clock is stepped ahead deleted every open session
   * for good, and their tokens stayed refused once the clock came back (a clock-step probe).
   */
  readonly removalHorizon?: RemovalHorizon | undefined;
}

export { DEFAULT_MAX_OPEN_SESSIONS_PER_PASSPORT };

export class MemorySessionStore implements SyncSessionStore {
  readonly maxEntries: number;
  readonly maxOpenPerPassport: number;
  /** Insertion order = creation order. */
  private readonly sessions = new Map<string, SessionRecord>();
  /**
   * Each passport's sessions that are not closed (id → expiry), in creation order, so that a login
   * counts the passport's open sessions without scanning every session or looking each record up.
   */
  private readonly byPassport = new Map<string, Map<string, number>>();

  private readonly removalBy: RemovalHorizon;

  constructor(options: MemorySessionStoreOptions = {}) {
    this.removalBy = options.removalHorizon ?? uncappedRemoval;
    this.maxEntries = positiveCap(options.maxEntries ?? 100_000, 'maxEntries');
    this.maxOpenPerPassport = positiveCap(
      options.maxOpenPerPassport ?? DEFAULT_MAX_OPEN_SESSIONS_PER_PASSPORT,
      'maxOpenPerPassport',
    );
  }

  async create(session: SessionRecord): Promise<void> {
    if (this.sessions.has(session.sessionId)) throw new Error(`session ${session.sessionId} already exists`);
    const nowMs = session.createdAtMs;
    if (this.sessions.size >= this.maxEntries) this.sweepSync(nowMs);
    // A passport at its own bound makes room by closing its own oldest (then swept); nobody else's.
    const closed = this.closeOldestOfPassport(session.tokenId, nowMs, this.sessions.size >= this.maxEntries);
    if (closed > 0 && this.sessions.size >= this.maxEntries) this.sweepSync(nowMs);
    // Still full: sessions expired by the wall clock go too, rather than a refusal. The horizon may lag
    // the wall clock for good (a suspended machine), and a store full of expired sessions refused every
    // login (a review).
    if (this.sessions.size >= this.maxEntries) this.sweepSync(nowMs, true);
    if (this.sessions.size >= this.maxEntries) throw new SessionCapacityError(this.maxEntries);
    this.sessions.set(
      session.sessionId,
      Object.freeze({ renewalCount: 0, lastRenewedAtMs: null, ...session }),
    );
    if (session.closedAtMs !== null) return;
    let ids = this.byPassport.get(session.tokenId);
    if (!ids) this.byPassport.set(session.tokenId, (ids = new Map()));
    ids.set(session.sessionId, session.expiresAtMs);
  }

  async recordRenewal(sessionId: string, nowMs: number): Promise<boolean> {
    const session = this.sessions.get(sessionId);
    if (!session || !isOpen(session, nowMs)) return false;
    this.sessions.set(
      sessionId,
      Object.freeze({ ...session, renewalCount: (session.renewalCount ?? 0) + 1, lastRenewedAtMs: nowMs }),
    );
    return true;
  }

  /**
   * Makes room for one more open session of `tokenId` by closing its own oldest ones; returns how many
   * it closed. When the store is full (`storeFull`) and closing would not free a place, closes nothing.
   */
  private closeOldestOfPassport(tokenId: string, nowMs: number, storeFull: boolean): number {
    const ids = this.byPassport.get(tokenId);
    if (!ids) return 0;
    // The index only serves this count: an expired session leaves it here (the sweep removes the record
    // itself), a closed one when it is closed.
    for (const [id, expiresAtMs] of ids) if (expiresAtMs <= nowMs) ids.delete(id);
    // Map order is creation order: the first ones are the oldest.
    const excess = Math.max(0, ids.size - this.maxOpenPerPassport + 1);
    if (storeFull && excess === 0) return 0;
    let closed = 0;
    for (const id of ids.keys()) {
      if (closed === excess) break;
      this.closeSync(id, SESSION_SUPERSEDED, nowMs);
      closed++;
    }
    return excess;
  }

  async get(sessionId: string): Promise<SessionRecord | null> {
    return this.getSync(sessionId);
  }

  getSync(sessionId: string): SessionRecord | null {
    return this.sessions.get(sessionId) ?? null;
  }

  async close(sessionId: string, reason: string, nowMs: number): Promise<boolean> {
    return this.closeSync(sessionId, reason, nowMs);
  }

  private closeSync(sessionId: string, reason: string, nowMs: number): boolean {
    const session = this.sessions.get(sessionId);
    if (!session || session.closedAtMs !== null) return false;
    this.sessions.set(sessionId, Object.freeze({ ...session, closedAtMs: nowMs, closeReason: reason }));
    this.byPassport.get(session.tokenId)?.delete(sessionId);
    return true;
  }

  async list(page: { offset: number; limit: number }): Promise<SessionPage> {
    const all = [...this.sessions.values()];
    // Stable sort keeps creation order among equal timestamps; reverse it for newest first.
    const newestFirst = all.reverse().sort((a, b) => b.createdAtMs - a.createdAtMs);
    const offset = Math.max(0, Math.floor(page.offset));
    return {
      items: newestFirst.slice(offset, offset + Math.max(0, Math.floor(page.limit))),
      total: all.length,
    };
  }

  async sweep(nowMs: number): Promise<number> {
    return this.sweepSync(nowMs);
  }

  async countOpen(nowMs: number): Promise<number> {
    let open = 0;
    for (const s of this.sessions.values()) if (isOpen(s, nowMs)) open++;
    return open;
  }

  get size(): number {
    return this.sessions.size;
  }

  private sweepSync(nowMs: number, byWallClock = false): number {
    let removed = 0;
    const by = byWallClock ? nowMs : this.removalBy(nowMs);
    for (const [id, s] of this.sessions) {
      if (!isOpen(s, by)) {
        this.sessions.delete(id);
        const ids = this.byPassport.get(s.tokenId);
        ids?.delete(id);
        if (ids?.size === 0) this.byPassport.delete(s.tokenId);
        removed++;
      }
    }
    return removed;
  }
}

function isOpen(s: SessionRecord, nowMs: number): boolean {
  return s.closedAtMs === null && s.expiresAtMs > nowMs;
}
