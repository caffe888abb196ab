/**
 * SessionStore on Redis, shared by every instance: a logout or revocation on one is refused on every
 * other at the next request. `get` reads Redis (one script call), or, given a FleetSessionEpoch, answers
 * from an in-process cache while the fleet's session epoch (incremented by every script below that
 * changes a stored session, `<prefix>{sess}:epoch`) is unchanged since the session was read.
 *
 * Keys (one hash tag, so each script's keys share a Redis Cluster slot):
 * - `<prefix>{sess}:s:<sessionId>` hash of the record plus `ord` (its creation order) and
 *   `serverExpiresAtMs` (its end on Redis's clock), with a TTL of the session's lifetime plus one hour
 *   (an expired or closed session stays readable until swept);
 * - `<prefix>{sess}:idx`      hash sessionId → `<ord>|<tokenId>`, so a sweep finds every index entry of
 *   a session whose hash has already expired (after a long time without sweeps);
 * - `<prefix>{sess}:created`  sorted set `<ord>:<sessionId>` → createdAtMs (newest first, total);
 * - `<prefix>{sess}:open`     sorted set sessionId → expiresAtMs of open sessions (countOpen, sweep);
 * - `<prefix>{sess}:closed`   set of closed sessionIds (sweep);
 * - `<prefix>{sess}:p:<tokenId>` sorted set sessionId → creation order of the passport's sessions not
 *   closed (per-passport bound; a close removes its member, a sweep the rest);
 * - `<prefix>{sess}:seq`      creation counter.
 * Semantics and bounds are the SQLite adapter's (same contract suite): a create at `maxEntries` first
 * sweeps; a passport beyond `maxOpenPerPassport` closes its own oldest (`superseded`); if still full,
 * `SessionCapacityError` and nothing is stored. Create, close, renewal and sweep are each one Lua script;
 * a sweep removes at most 1000 sessions per script call (it loops), so it never blocks Redis for long.
 * List and countOpen skip, and forget, index entries whose hash is gone.
 *
 * Clock skew across a fleet: a session's `expiresAtMs` comes from the clock of the instance that
 * created it. Its lifetime is also measured on Redis's clock (`serverExpiresAtMs`); `get` reports a
 * session past that as closed (`expired`) and renewals are refused, so an instance whose clock runs
 * behind cannot keep a session alive longer than it was issued for. Sweeps never run ahead of Redis's
 * clock, so an instance whose clock runs ahead cannot sweep away the sessions of others.
 */
import {
  DEFAULT_MAX_OPEN_SESSIONS_PER_PASSPORT,
  positiveCap,
  SessionCapacityError,
  SESSION_SUPERSEDED,
  type SessionPage,
  type SessionRecord,
  type SessionStore,
} from '@passport/core/ports';
import { type RedisConnection, defineScript } from './redis-client.js';
import {
  CLOSE_LOST_BATCH_LUA,
  CLOSE_LUA,
  COUNT_OPEN_LUA,
  CREATE_LUA,
  FORGET_BEFORE_LOSS_LUA,
  GET_LUA,
  LIST_LUA,
  RENEW_LUA,
  SWEEP_BATCH,
  SWEEP_LUA,
} from './redis-session.scripts.js';
import { type FleetSessionEpoch } from './fleet-session-epoch.js';
import { type RedisHistoryWatch } from './redis-history.watch.js';

export const DEFAULT_REDIS_SESSION_MAX_ENTRIES = 100_000;
/** The store's fixed keys under its hash tag (redis-session.scripts.ts names what each holds). */
const SESSION_INDEX_KEYS = ['idx', 'created', 'open', 'closed', 'seq', 'epoch'] as const;

/** How long Redis keeps a session after its expiry if no sweep removed it first. */
const KEEP_AFTER_EXPIRY_MS = 3_600_000;
/** Close reason `get` reports for a session past its end on Redis's clock. */
export const SESSION_EXPIRED_ON_SERVER = 'expired';

export interface RedisSessionStoreOptions {
  /** Key prefix shared by every adapter of one deployment (default `passport:`). */
  readonly prefix?: string | undefined;
  /** Sessions stored at most (default 100 000). */
  readonly maxEntries?: number | undefined;
  /** Open sessions one passport may hold (default 100). */
  readonly maxOpenPerPassport?: number | undefined;
  /**
   * Enables the read cache: `get` answers from memory while this epoch (read by every request's public
   * rate-limit take) is unchanged since the session was read from Redis. Without it every `get` reads Redis.
   */
  readonly epoch?: FleetSessionEpoch | undefined;
  /** Sessions the read cache holds at most (default 10 000; the oldest entry leaves first; 0: no cache). */
  readonly cacheEntries?: number | undefined;
  /**
   * Longest a cached session is served without reading Redis, whatever the epoch says (default 5 s). It
   * bounds what a change the epoch missed can cost: an instance of an older version closing a session
   * during a rolling deploy, or an epoch counter that climbed back to a value already seen after Redis
   * lost data.
   */
  readonly cacheMaxAgeMs?: number | undefined;
  /**
   * The watch that notices Redis losing data (the replay store's). When a hold starts, the sessions
   * stored before the loss are forgotten (`get` answers null: log in again), as after a restart without
   * persistence: a restart from an older snapshot brought back sessions closed since (a chaos soak: a
   * token whose logout was answered 200 was accepted again on every instance).
   */
  readonly history?: RedisHistoryWatch | undefined;
  /** Called when forgetting the sessions before a loss failed (each attempt; it is tried 3 times). */
  readonly onForgetFailed?: ((error: unknown) => void) | undefined;
}

export const DEFAULT_REDIS_SESSION_CACHE_MAX_AGE_MS = 5_000;

interface CachedSession {
  readonly epoch: string;
  /** `performance.now()` when read from Redis. */
  readonly readAt: number;
  readonly record: SessionRecord;
  readonly serverExpiresAtMs: number;
}

type Script = (...args: Array<string | number>) => Promise<unknown>;

export class RedisSessionStore implements SessionStore {
  readonly maxEntries: number;
  readonly maxOpenPerPassport: number;
  private readonly base: string;
  private readonly createScript: Script;
  private readonly closeScript: Script;
  private readonly renewScript: Script;
  private readonly sweepScript: Script;
  private readonly listScript: Script;
  private readonly getScript: Script;
  private readonly countOpenScript: Script;
  private readonly forgetBeforeLossScript: Script;
  private readonly closeLostBatchScript: Script;
  /** `<base>lost-through`: sessions of a creation order up to its value are forgotten. */
  private readonly lostThroughKey: string;
  /** The store's index keys, declared by the scripts that use them (see the constructor). */
  private readonly indexKeys: readonly string[];
  private readonly epoch: FleetSessionEpoch | undefined;
  private readonly cache = new Map<string, CachedSession>();
  private readonly cacheEntries: number;
  private readonly cacheMaxAgeMs: number;

  constructor(
    private readonly redis: RedisConnection,
    options: RedisSessionStoreOptions = {},
  ) {
    this.maxEntries = positiveCap(options.maxEntries ?? DEFAULT_REDIS_SESSION_MAX_ENTRIES, 'maxEntries');
    this.maxOpenPerPassport = positiveCap(
      options.maxOpenPerPassport ?? DEFAULT_MAX_OPEN_SESSIONS_PER_PASSPORT,
      'maxOpenPerPassport',
    );
    this.base = `${options.prefix ?? 'passport:'}{sess}:`;
    this.indexKeys = SESSION_INDEX_KEYS.map((name) => this.base + name);
    // Each script declares the store's keys under its hash tag (KEYS: the session's hash where there is
    // one, then SESSION_INDEX_KEYS in order, then for create the passport's set; the scripts name the
    // keys they use from ARGV's base). A Redis Cluster client sends a script to the master of its
    // declared keys' slot (one with none went to any master, which refused it), and while that slot
    // migrates Redis answers a script whose declared keys are partly moved with TRYAGAIN (it runs
    // nothing) instead of running it on one side alone.
    const indexed = this.indexKeys.length;
    this.createScript = defineScript(redis, 'passportSessionCreate', 1 + indexed + 1, CREATE_LUA);
    this.closeScript = defineScript(redis, 'passportSessionClose', 1 + indexed, CLOSE_LUA);
    this.renewScript = defineScript(redis, 'passportSessionRenew', 1 + indexed, RENEW_LUA);
    this.sweepScript = defineScript(redis, 'passportSessionSweep', indexed, SWEEP_LUA);
    this.listScript = defineScript(redis, 'passportSessionList', indexed, LIST_LUA);
    this.lostThroughKey = `${this.base}lost-through`;
    this.getScript = defineScript(redis, 'passportSessionGet', 2, GET_LUA);
    this.forgetBeforeLossScript = defineScript(
      redis,
      'passportSessionForgetBeforeLoss',
      indexed + 1,
      FORGET_BEFORE_LOSS_LUA,
    );
    this.closeLostBatchScript = defineScript(
      redis,
      'passportSessionCloseLostBatch',
      indexed + 1,
      CLOSE_LOST_BATCH_LUA,
    );
    this.countOpenScript = defineScript(redis, 'passportSessionCountOpen', indexed, COUNT_OPEN_LUA);
    this.epoch = options.epoch;
    // 0 turns the cache off; NaN would leave it unbounded.
    this.cacheEntries =
      options.cacheEntries === 0 ? 0 : positiveCap(options.cacheEntries ?? 10_000, 'cacheEntries');
    this.cacheMaxAgeMs = options.cacheMaxAgeMs ?? DEFAULT_REDIS_SESSION_CACHE_MAX_AGE_MS;
    this.epoch?.onChange(() => this.cache.clear());
    const onForgetFailed = options.onForgetFailed;
    options.history?.onLossHeld(() => void this.forgetBeforeLoss(onForgetFailed));
  }

  /**
   * Forgets every session stored now (Redis just lost data, and its sessions are from before the loss):
   * they read as unknown from here on, on every instance. Tried 3 times, a second apart; resolves to
   * whether it took.
   */
  async forgetBeforeLoss(onFailure?: (error: unknown) => void): Promise<boolean> {
    this.cache.clear();
    for (let attempt = 1; ; attempt++) {
      try {
        const through = Number(
          await this.forgetBeforeLossScript(...this.indexKeys, this.lostThroughKey, this.base),
        );
        this.cache.clear();
        // Then closed for good, 1000 a script call (Redis serves others in between).
        for (let offset = 0; ;) {
          const [closed, examined] = (await this.closeLostBatchScript(
            ...this.indexKeys,
            this.lostThroughKey,
            this.base,
            through,
            Date.now(),
            offset,
            SWEEP_BATCH,
          )) as [number, number];
          offset += Number(examined) - Number(closed);
          if (Number(examined) < SWEEP_BATCH) break;
        }
        this.cache.clear();
        return true;
      } catch (error) {
        onFailure?.(error);
        if (attempt >= 3) return false;
        await new Promise((resolve) => setTimeout(resolve, 1000).unref());
      }
    }
  }

  async create(session: SessionRecord): Promise<void> {
    const fields: Array<string | number> = [
      'sessionId',
      session.sessionId,
      'tokenId',
      session.tokenId,
      'ownerId',
      session.ownerId,
      'jti',
      session.jti,
      'createdAtMs',
      session.createdAtMs,
      'expiresAtMs',
      session.expiresAtMs,
      'renewalCount',
      session.renewalCount ?? 0,
    ];
    if (session.closedAtMs !== null) fields.push('closedAtMs', session.closedAtMs);
    if (session.closeReason !== null) fields.push('closeReason', session.closeReason);
    if (session.federatedFrom !== null) fields.push('federatedFrom', session.federatedFrom);
    if (session.lastRenewedAtMs != null) fields.push('lastRenewedAtMs', session.lastRenewedAtMs);
    const lifetime = Math.max(0, session.expiresAtMs - session.createdAtMs);
    const ttl = Math.max(1, lifetime) + KEEP_AFTER_EXPIRY_MS;
    const status = Number(
      await this.createScript(
        this.key(session.sessionId),
        ...this.indexKeys,
        `${this.base}p:${session.tokenId}`,
        this.base,
        session.createdAtMs,
        this.maxEntries,
        this.maxOpenPerPassport,
        session.sessionId,
        session.tokenId,
        ttl,
        lifetime,
        SESSION_SUPERSEDED,
        ...fields,
      ),
    );
    if (status === -1) throw new Error(`session ${session.sessionId} already exists`);
    if (status === -2) throw new SessionCapacityError(this.maxEntries);
  }

  async get(sessionId: string): Promise<SessionRecord | null> {
    // The epoch as known before the read: a change after it (even one racing this read) drops the entry.
    const seen = this.cacheEntries > 0 ? (this.epoch?.current() ?? null) : null;
    const readAt = performance.now();
    if (seen !== null) {
      const hit = this.cache.get(sessionId);
      if (hit !== undefined && hit.epoch === seen.epoch && readAt - hit.readAt < this.cacheMaxAgeMs)
        return endedOnServer(hit.record, hit.serverExpiresAtMs, seen.serverNowMs);
    }
    const [flat, serverNow, lostThrough] = (await this.getScript(
      this.key(sessionId),
      this.lostThroughKey,
    )) as [string[], number, string | null];
    const hash = fromFlat(flat);
    if (hash.sessionId === undefined || forgotten(hash, lostThrough)) return null;
    const record = toRecord(hash);
    const serverExpiresAtMs = Number(hash.serverExpiresAtMs);
    if (seen !== null) {
      this.cache.delete(sessionId); // re-inserted last, so the oldest read leaves first
      if (this.cache.size >= this.cacheEntries) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(sessionId, { epoch: seen.epoch, readAt, record, serverExpiresAtMs });
    }
    return endedOnServer(record, serverExpiresAtMs, Number(serverNow));
  }

  async close(sessionId: string, reason: string, nowMs: number): Promise<boolean> {
    this.cache.delete(sessionId);
    return (
      Number(
        await this.closeScript(this.key(sessionId), ...this.indexKeys, this.base, sessionId, nowMs, reason),
      ) === 1
    );
  }

  async recordRenewal(sessionId: string, nowMs: number): Promise<boolean> {
    this.cache.delete(sessionId);
    return (
      Number(await this.renewScript(this.key(sessionId), ...this.indexKeys, this.base, sessionId, nowMs)) ===
      1
    );
  }

  async list(page: { offset: number; limit: number }): Promise<SessionPage> {
    const offset = Math.max(0, Math.floor(page.offset));
    const limit = Math.max(0, Math.floor(page.limit));
    if (limit === 0) return { items: [], total: await this.redis.zcard(`${this.base}created`) };
    const [[total, ...hashes], lostThrough] = await Promise.all([
      this.listScript(...this.indexKeys, this.base, offset, limit) as Promise<[number, ...string[][]]>,
      this.redis.hget(this.lostThroughKey, 'through'),
    ]);
    // A session forgotten after a loss is listed as what it is to a request: ended (reason `lost`).
    return {
      items: hashes.map((flat) => {
        const hash = fromFlat(flat);
        const record = toRecord(hash);
        return forgotten(hash, lostThrough) && record.closedAtMs === null
          ? Object.freeze({ ...record, closedAtMs: record.createdAtMs, closeReason: SESSION_LOST })
          : record;
      }),
      total: Number(total),
    };
  }

  /** Removes closed and expired sessions, at most 1000 per script call (Redis serves others in between). */
  async sweep(nowMs: number): Promise<number> {
    let removed = 0;
    for (;;) {
      const batch = Number(await this.sweepScript(...this.indexKeys, this.base, nowMs, SWEEP_BATCH));
      removed += batch;
      if (batch < SWEEP_BATCH) return removed;
    }
  }

  /** Counted 1000 index entries per script call (a gauge: sessions opened or closed meanwhile may be missed). */
  async countOpen(nowMs: number): Promise<number> {
    let counted = 0;
    let offset = 0;
    for (;;) {
      const [kept, examined] = (await this.countOpenScript(
        ...this.indexKeys,
        this.base,
        nowMs,
        offset,
        SWEEP_BATCH,
      )) as [number, number];
      counted += Number(kept);
      offset += Number(kept);
      if (Number(examined) < SWEEP_BATCH) return counted;
    }
  }

  /** Sessions stored (closed and expired ones not yet swept included). */
  get size(): Promise<number> {
    return this.redis.zcard(`${this.base}created`);
  }

  private key(sessionId: string): string {
    return `${this.base}s:${sessionId}`;
  }
}

/** Close reason `list` reports for a session stored before Redis lost data (get answers null for it). */
export const SESSION_LOST = 'lost';

/** Whether a stored session was created through `lost-through` (stored before a loss). */
function forgotten(hash: Record<string, string>, lostThrough: string | null): boolean {
  return lostThrough !== null && !(Number(hash.ord) > Number(lostThrough));
}

/** A session past its end on Redis's clock is reported closed: refused however far behind the reader's clock runs. */
function endedOnServer(record: SessionRecord, serverExpiresAtMs: number, serverNowMs: number): SessionRecord {
  if (record.closedAtMs !== null || !(serverExpiresAtMs <= serverNowMs)) return record;
  return Object.freeze({ ...record, closedAtMs: record.expiresAtMs, closeReason: SESSION_EXPIRED_ON_SERVER });
}

function fromFlat(flat: readonly string[]): Record<string, string> {
  const hash: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) hash[flat[i]] = flat[i + 1];
  return hash;
}

function toRecord(hash: Record<string, string>): SessionRecord {
  const numberOrNull = (value: string | undefined): number | null =>
    value === undefined ? null : Number(value);
  return Object.freeze({
    sessionId: hash.sessionId,
    tokenId: hash.tokenId,
    ownerId: hash.ownerId,
    jti: hash.jti,
    createdAtMs: Number(hash.createdAtMs),
    expiresAtMs: Number(hash.expiresAtMs),
    closedAtMs: numberOrNull(hash.closedAtMs),
    closeReason: hash.closeReason ?? null,
    federatedFrom: hash.federatedFrom ?? null,
    renewalCount: Number(hash.renewalCount ?? 0),
    lastRenewedAtMs: numberOrNull(hash.lastRenewedAtMs),
  });
}
