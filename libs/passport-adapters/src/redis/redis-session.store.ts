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
import {
  SessionCapacityError,
  SESSION_SUPERSEDED,
  type SessionPage,
  type SessionRecord,
  type SessionStore,
} from '@passport/core/ports';
import { defineScript } from './redis-client.js';

export const DEFAULT_REDIS_SESSION_MAX_ENTRIES = 100_000;
const DEFAULT_MAX_OPEN_PER_PASSPORT = 100;
/** How long Redis keeps a session after its expiry if no sweep removed it first. */
const KEEP_AFTER_EXPIRY_MS = 3_600_000;

/** Shared Lua: sweep(now) deletes closed and expired sessions; returns how many. */
const SWEEP_FN = `
local function sweep(base, now)
  local gone = redis.call('ZRANGEBYSCORE', base .. 'open', '-inf', now)
  for _, id in ipairs(redis.call('SMEMBERS', base .. 'closed')) do gone[#gone + 1] = id end
  for _, id in ipairs(gone) do
    local f = redis.call('HMGET', base .. 's:' .. id, 'tokenId', 'ord')
    if f[1] then redis.call('ZREM', base .. 'p:' .. f[1], id) end
    if f[2] then redis.call('ZREM', base .. 'created', f[2] .. ':' .. id) end
    redis.call('DEL', base .. 's:' .. id)
    redis.call('ZREM', base .. 'open', id)
    redis.call('SREM', base .. 'closed', id)
  end
  return #gone
end
local function closeSession(base, id, now, reason)
  if redis.call('ZSCORE', base .. 'open', id) == false then return 0 end
  redis.call('HSET', base .. 's:' .. id, 'closedAtMs', now, 'closeReason', reason)
  redis.call('ZREM', base .. 'open', id)
  redis.call('SADD', base .. 'closed', id)
  return 1
end
`;

/**
 * KEYS[1] = the session hash. ARGV: base, now, maxEntries, maxPerPassport, sessionId, tokenId, ttl,
 * then the record's fields as name/value pairs. Returns 1 created, -1 exists, -2 full.
 */
const CREATE_LUA = `${SWEEP_FN}
local base, now, maxEntries, maxPer, id, tokenId, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5], ARGV[6], tonumber(ARGV[7])
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
if redis.call('ZCARD', base .. 'created') >= maxEntries then sweep(base, now) end
local mine = redis.call('ZRANGE', base .. 'p:' .. tokenId, 0, -1)
local open = {}
for _, sid in ipairs(mine) do
  local exp = redis.call('ZSCORE', base .. 'open', sid)
  if exp and tonumber(exp) > now then open[#open + 1] = sid end
end
local excess = math.max(0, #open - maxPer + 1)
-- Closing own sessions frees room only after a sweep: refuse before changing anything when it cannot.
if redis.call('ZCARD', base .. 'created') >= maxEntries and excess == 0 then return -2 end
for i = 1, excess do closeSession(base, open[i], now, ARGV[8]) end
if excess > 0 and redis.call('ZCARD', base .. 'created') >= maxEntries then sweep(base, now) end
if redis.call('ZCARD', base .. 'created') >= maxEntries then return -2 end
local ord = string.format('%020d', redis.call('INCR', base .. 'seq'))
local fields = {}
for i = 9, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], 'ord', ord, unpack(fields))
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('ZADD', base .. 'created', tonumber(redis.call('HGET', KEYS[1], 'createdAtMs')), ord .. ':' .. id)
local expires = tonumber(redis.call('HGET', KEYS[1], 'expiresAtMs'))
if redis.call('HEXISTS', KEYS[1], 'closedAtMs') == 1 then
  redis.call('SADD', base .. 'closed', id)
else
  redis.call('ZADD', base .. 'open', expires, id)
end
redis.call('ZADD', base .. 'p:' .. tokenId, tonumber(ord), id)
redis.call('PEXPIRE', base .. 'p:' .. tokenId, ttl)
return 1
`;

/** ARGV: base, sessionId, now, reason. */
const CLOSE_LUA = `${SWEEP_FN}
return closeSession(ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4])
`;

/** ARGV: base, sessionId, now. Counts a renewal of an open, unexpired session. */
const RENEW_LUA = `
local exp = redis.call('ZSCORE', ARGV[1] .. 'open', ARGV[2])
if exp == false or tonumber(exp) <= tonumber(ARGV[3]) then return 0 end
redis.call('HINCRBY', ARGV[1] .. 's:' .. ARGV[2], 'renewalCount', 1)
redis.call('HSET', ARGV[1] .. 's:' .. ARGV[2], 'lastRenewedAtMs', ARGV[3])
return 1
`;

const SWEEP_LUA = `${SWEEP_FN}
return sweep(ARGV[1], tonumber(ARGV[2]))
`;

/** ARGV: base, offset, limit. Returns total, then the page's hashes (flat field lists), newest first. */
const LIST_LUA = `
local base = ARGV[1]
local total = redis.call('ZCARD', base .. 'created')
local ords = redis.call('ZREVRANGE', base .. 'created', tonumber(ARGV[2]), tonumber(ARGV[2]) + tonumber(ARGV[3]) - 1)
local out = {total}
for _, ord in ipairs(ords) do
  out[#out + 1] = redis.call('HGETALL', base .. 's:' .. string.sub(ord, 22))
end
return out
`;

export interface RedisSessionStoreOptions {
  /** Key prefix shared by every adapter of one deployment (default `passport:`). */
  readonly prefix?: string;
  /** Sessions stored at most (default 100 000). */
  readonly maxEntries?: number;
  /** Open sessions one passport may hold (default 100). */
  readonly maxOpenPerPassport?: number;
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

  constructor(
    private readonly redis: Redis,
    options: RedisSessionStoreOptions = {},
  ) {
    this.maxEntries = options.maxEntries ?? DEFAULT_REDIS_SESSION_MAX_ENTRIES;
    this.maxOpenPerPassport = options.maxOpenPerPassport ?? DEFAULT_MAX_OPEN_PER_PASSPORT;
    this.base = `${options.prefix ?? 'passport:'}{sess}:`;
    this.createScript = defineScript(redis, 'passportSessionCreate', 1, CREATE_LUA);
    this.closeScript = defineScript(redis, 'passportSessionClose', 0, CLOSE_LUA);
    this.renewScript = defineScript(redis, 'passportSessionRenew', 0, RENEW_LUA);
    this.sweepScript = defineScript(redis, 'passportSessionSweep', 0, SWEEP_LUA);
    this.listScript = defineScript(redis, 'passportSessionList', 0, LIST_LUA);
  }

  async create(session: SessionRecord): Promise<void> {
    const fields: Array<string | number> = [
      'sessionId', session.sessionId,
      'tokenId', session.tokenId,
      'ownerId', session.ownerId,
      'jti', session.jti,
      'createdAtMs', session.createdAtMs,
      'expiresAtMs', session.expiresAtMs,
      'renewalCount', session.renewalCount ?? 0,
    ];
    if (session.closedAtMs !== null) fields.push('closedAtMs', session.closedAtMs);
    if (session.closeReason !== null) fields.push('closeReason', session.closeReason);
    if (session.federatedFrom !== null) fields.push('federatedFrom', session.federatedFrom);
    if (session.lastRenewedAtMs != null) fields.push('lastRenewedAtMs', session.lastRenewedAtMs);
    const ttl = Math.max(1, session.expiresAtMs - session.createdAtMs) + KEEP_AFTER_EXPIRY_MS;
    const status = Number(
      await this.createScript(
        this.key(session.sessionId),
        this.base,
        session.createdAtMs,
        this.maxEntries,
        this.maxOpenPerPassport,
        session.sessionId,
        session.tokenId,
        ttl,
        SESSION_SUPERSEDED,
        ...fields,
      ),
    );
    if (status === -1) throw new Error(`session ${session.sessionId} already exists`);
    if (status === -2) throw new SessionCapacityError(this.maxEntries);
  }

  async get(sessionId: string): Promise<SessionRecord | null> {
    const hash = await this.redis.hgetall(this.key(sessionId));
    return hash.sessionId === undefined ? null : toRecord(hash);
  }

  async close(sessionId: string, reason: string, nowMs: number): Promise<boolean> {
    return Number(await this.closeScript(this.base, sessionId, nowMs, reason)) === 1;
  }

  async recordRenewal(sessionId: string, nowMs: number): Promise<boolean> {
    return Number(await this.renewScript(this.base, sessionId, nowMs)) === 1;
  }

  async list(page: { offset: number; limit: number }): Promise<SessionPage> {
    const offset = Math.max(0, Math.floor(page.offset));
    const limit = Math.max(0, Math.floor(page.limit));
    if (limit === 0) return { items: [], total: await this.redis.zcard(`${this.base}created`) };
    const [total, ...hashes] = (await this.listScript(this.base, offset, limit)) as [number, ...string[][]];
    const items = hashes.map((flat) => {
      const hash: Record<string, string> = {};
      for (let i = 0; i + 1 < flat.length; i += 2) hash[flat[i]] = flat[i + 1];
      return toRecord(hash);
    });
    return { items, total };
  }

  async sweep(nowMs: number): Promise<number> {
    return Number(await this.sweepScript(this.base, nowMs));
  }

  async countOpen(nowMs: number): Promise<number> {
    return this.redis.zcount(`${this.base}open`, `(${nowMs}`, '+inf');
  }

  /** Sessions stored (closed and expired ones not yet swept included). */
  get size(): Promise<number> {
    return this.redis.zcard(`${this.base}created`);
  }

  private key(sessionId: string): string {
    return `${this.base}s:${sessionId}`;
  }
}

function toRecord(hash: Record<string, string>): SessionRecord {
  const numberOrNull = (value: string | undefined): number | null => (value === undefined ? null : Number(value));
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
