/**
 * SessionStore on Redis, shared by every instance: a logout or revocation on one is refused on every
 * other at the next request, because every `get` reads Redis (no in-process cache to invalidate; one
 * HGETALL on a pooled connection).
 *
 * Keys (one hash tag, so each script's keys share a Redis Cluster slot):
 * - `<prefix>{sess}:s:<sessionId>` hash of the record plus `ord` (its creation order), with a TTL of
 *   the session's lifetime plus one hour (an expired or closed session stays readable until swept);
 * - `<prefix>{sess}:created`  sorted set `<ord>:<sessionId>` → createdAtMs (newest first, total);
 * - `<prefix>{sess}:open`     sorted set sessionId → expiresAtMs of open sessions (countOpen, sweep);
 * - `<prefix>{sess}:closed`   set of closed sessionIds (sweep);
 * - `<prefix>{sess}:p:<tokenId>` sorted set sessionId → creation order (per-passport bound);
 * - `<prefix>{sess}:seq`      creation counter.
 * Semantics and bounds are the SQLite adapter's (same contract suite): a create at `maxEntries` first
 * sweeps; a passport beyond `maxOpenPerPassport` closes its own oldest (`superseded`); if still full,
 * `SessionCapacityError` and nothing is stored. Create, close, renewal and sweep are each one Lua script.
 */
import { type Redis } from 'ioredis';
import { type SessionPage, type SessionRecord, type SessionStore } from '@passport/core/ports';
export declare const DEFAULT_REDIS_SESSION_MAX_ENTRIES = 100000;
export interface RedisSessionStoreOptions {
    /** Key prefix shared by every adapter of one deployment (default `passport:`). */
    readonly prefix?: string;
    /** Sessions stored at most (default 100 000). */
    readonly maxEntries?: number;
    /** Open sessions one passport may hold (default 100). */
    readonly maxOpenPerPassport?: number;
}
export declare class RedisSessionStore implements SessionStore {
    private readonly redis;
    readonly maxEntries: number;
    readonly maxOpenPerPassport: number;
    private readonly base;
    private readonly createScript;
    private readonly closeScript;
    private readonly renewScript;
    private readonly sweepScript;
    private readonly listScript;
    constructor(redis: Redis, options?: RedisSessionStoreOptions);
    create(session: SessionRecord): Promise<void>;
    get(sessionId: string): Promise<SessionRecord | null>;
    close(sessionId: string, reason: string, nowMs: number): Promise<boolean>;
    recordRenewal(sessionId: string, nowMs: number): Promise<boolean>;
    list(page: {
        offset: number;
        limit: number;
    }): Promise<SessionPage>;
    sweep(nowMs: number): Promise<number>;
    countOpen(nowMs: number): Promise<number>;
    /** Sessions stored (closed and expired ones not yet swept included). */
    get size(): Promise<number>;
    private key;
}
