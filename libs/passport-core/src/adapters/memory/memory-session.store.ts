/**
 * @module adapters/memory/memory-session.store
 * Single-instance SessionStore on a Map, capped at `maxEntries`. When full, a new session first makes
 * room by dropping closed and expired sessions, then the oldest open session (which logs that
 * client out: eviction fails closed — a JWT is never honoured without its session).
 *
 * Semantics shared with the SQLite/Redis adapters: a session is open while `closedAtMs` is null and
 * `expiresAtMs > nowMs`; `sweep(nowMs)` deletes every session that is closed or has
 * `expiresAtMs <= nowMs`; `list` is newest first by `createdAtMs` and `total` counts every stored session.
 */
import { type SessionPage, type SessionRecord, type SessionStore } from '../../ports/session-store.port.js';
import { positiveInteger } from './capacity.js';

export interface MemorySessionStoreOptions {
  /** Maximum sessions held (default 100 000). */
  readonly maxEntries?: number;
}

export class MemorySessionStore implements SessionStore {
  readonly maxEntries: number;
  /** Insertion order = creation order. */
  private readonly sessions = new Map<string, SessionRecord>();

  constructor(options: MemorySessionStoreOptions = {}) {
    this.maxEntries = positiveInteger(options.maxEntries ?? 100_000, 'maxEntries');
  }

  async create(session: SessionRecord): Promise<void> {
    if (this.sessions.has(session.sessionId)) throw new Error(`session ${session.sessionId} already exists`);
    if (this.sessions.size >= this.maxEntries) this.makeRoom(session.createdAtMs);
    this.sessions.set(session.sessionId, Object.freeze({ ...session }));
  }

  async get(sessionId: string): Promise<SessionRecord | null> {
    return this.sessions.get(sessionId) ?? null;
  }

  async close(sessionId: string, reason: string, nowMs: number): Promise<boolean> {
    const session = this.sessions.get(sessionId);
    if (!session || session.closedAtMs !== null) return false;
    this.sessions.set(sessionId, Object.freeze({ ...session, closedAtMs: nowMs, closeReason: reason }));
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

  private sweepSync(nowMs: number): number {
    let removed = 0;
    for (const [id, s] of this.sessions) {
      if (!isOpen(s, nowMs)) {
        this.sessions.delete(id);
        removed++;
      }
    }
    return removed;
  }

  private makeRoom(nowMs: number): void {
    this.sweepSync(nowMs);
    while (this.sessions.size >= this.maxEntries) {
      const oldestId = this.sessions.keys().next().value as string;
      this.sessions.delete(oldestId);
    }
  }
}

function isOpen(s: SessionRecord, nowMs: number): boolean {
  return s.closedAtMs === null && s.expiresAtMs > nowMs;
}
