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
import { type Redis } from 'ioredis';
import {
  DEFAULT_MAX_OPEN_SESSIONS_PER_PASSPORT,
  positiveCap,
  SessionCapacityError,
  SESSION_SUPERSEDED,
  type SessionPage,
  type SessionRecord,
  type SessionStore,
} from '@passport/core/ports';
import { defineScript, refuseWhenFullLua, SERVER_CLOCK_LUA } from './redis-client.js';
import { type FleetSessionEpoch } from './fleet-session-epoch.js';

export const DEFAULT_REDIS_SESSION_MAX_ENTRIES = 100_000;
/** How long Redis keeps a session after its expiry if no sweep removed it first. */
const KEEP_AFTER_EXPIRY_MS = 3_600_000;
/** Close reason `get` reports for a session past its end on Redis's clock. */
export const SESSION_EXPIRED_ON_SERVER = 'expired';

/** Sessions one sweep script removes at most, so no sweep blocks Redis for long (the caller loops). */
const SWEEP_BATCH = 1000;

/**
 * Shared Lua. forget(id) removes a session and every index entry of it (its `idx` entry finds them
 * even when the hash itself is gone). sweep(now, limit) removes up to `limit` closed sessions and
 * sessions expired by the earlier of `now` and Redis's clock (a caller whose clock runs ahead cannot
 * sweep away the sessions of others); returns how many.
 */
const SWEEP_FN = `${SERVER_CLOCK_LUA}
local function forget(base, id)
  local tokenId, ord
  local meta = redis.call('HGET', base .. 'idx', id)
  if meta then
    local sep = string.find(meta, '|', 1, true)
    ord, tokenId = string.sub(meta, 1, sep - 1), string.sub(meta, sep + 1)
  else
    local f = redis.call('HMGET', base .. 's:' .. id, 'tokenId', 'ord')
    tokenId, ord = f[1], f[2]
  end
  if tokenId then redis.call('ZREM', base .. 'p:' .. tokenId, id) end
  if ord then redis.call('ZREM', base .. 'created', ord .. ':' .. id) end
  redis.call('HDEL', base .. 'idx', id)
  redis.call('DEL', base .. 's:' .. id)
  redis.call('INCR', base .. 'epoch')
  redis.call('ZREM', base .. 'open', id)
  redis.call('SREM', base .. 'closed', id)
end
local function sweep(base, now, limit)
  local gone = redis.call('ZRANGEBYSCORE', base .. 'open', '-inf', earlier(now), 'LIMIT', 0, limit)
  if #gone < limit then
    for _, id in ipairs(redis.call('SRANDMEMBER', base .. 'closed', limit - #gone)) do gone[#gone + 1] = id end
  end
  for _, id in ipairs(gone) do forget(base, id) end
  return #gone
end
local function closeSession(base, id, now, reason)
  if redis.call('ZSCORE', base .. 'open', id) == false then return 0 end
  -- Its hash expired (no sweep for a long time): writing to it would leave a partial record.
  if redis.call('HEXISTS', base .. 's:' .. id, 'sessionId') == 0 then forget(base, id) return 0 end
  -- Every change to a stored session moves the epoch: cached copies on every instance are dropped.
  redis.call('INCR', base .. 'epoch')
  redis.call('HSET', base .. 's:' .. id, 'closedAtMs', now, 'closeReason', reason)
  redis.call('ZREM', base .. 'open', id)
  redis.call('SADD', base .. 'closed', id)
  -- Out of its passport's set at once: a login checks every member of that set, and superseded
  -- sessions would otherwise pile up there until the next sweep (a minute of logins at the bound).
  local tokenId = redis.call('HGET', base .. 's:' .. id, 'tokenId')
  if tokenId then redis.call('ZREM', base .. 'p:' .. tokenId, id) end
  return 1
end
`;

/**
 * KEYS[1] = the session hash. ARGV: base, now, maxEntries, maxPerPassport, sessionId, tokenId, ttl,
 * lifetime, then the record's fields as name/value pairs. Returns 1 created, -1 exists, -2 full.
 */
const CREATE_LUA = `${SWEEP_FN}
local base, now, maxEntries, maxPer, id, tokenId, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5], ARGV[6], tonumber(ARGV[7])
${refuseWhenFullLua("base .. 'oom-probe'")}
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
if redis.call('ZCARD', base .. 'created') >= maxEntries then sweep(base, now, ${SWEEP_BATCH}) end
local mine = redis.call('ZRANGE', base .. 'p:' .. tokenId, 0, -1)
local open = {}
for _, sid in ipairs(mine) do
  local exp = redis.call('ZSCORE', base .. 'open', sid)
  if exp and tonumber(exp) > now then open[#open + 1] = sid end
end
local excess = math.max(0, #open - maxPer + 1)
-- Closing own sessions frees room only after a sweep: refuse before changing anything when it cannot.
if redis.call('ZCARD', base .. 'created') >= maxEntries and excess == 0 then return -2 end
for i = 1, excess do closeSession(base, open[i], now, ARGV[9]) end
if excess > 0 and redis.call('ZCARD', base .. 'created') >= maxEntries then sweep(base, now, ${SWEEP_BATCH}) end
if redis.call('ZCARD', base .. 'created') >= maxEntries then return -2 end
local ord = string.format('%020d', redis.call('INCR', base .. 'seq'))
local fields = {}
for i = 10, #ARGV do fields[#fields + 1] = ARGV[i] end
-- The session ends at the writer's lifetime measured on Redis's clock, whatever the reader's clock says.
redis.call('HSET', KEYS[1], 'ord', ord, 'serverExpiresAtMs', serverNow + tonumber(ARGV[8]), unpack(fields))
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('HSET', base .. 'idx', id, ord .. '|' .. tokenId)
redis.call('ZADD', base .. 'created', tonumber(redis.call('HGET', KEYS[1], 'createdAtMs')), ord .. ':' .. id)
local expires = tonumber(redis.call('HGET', KEYS[1], 'expiresAtMs'))
if redis.call('HEXISTS', KEYS[1], 'closedAtMs') == 1 then
  redis.call('SADD', base .. 'closed', id)
else
  redis.call('ZADD', base .. 'open', expires, id)
  redis.call('ZADD', base .. 'p:' .. tokenId, tonumber(ord), id)
  redis.call('PEXPIRE', base .. 'p:' .. tokenId, ttl)
end
return 1
`;

/** KEYS[1] = the session hash. Returns the hash (flat) and Redis's clock (ms). */
const GET_LUA = `${SERVER_CLOCK_LUA}
return {redis.call('HGETALL', KEYS[1]), serverNow}
`;

/** ARGV: base, sessionId, now, reason. */
const CLOSE_LUA = `${SWEEP_FN}
return closeSession(ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4])
`;

/** ARGV: base, sessionId, now. Counts a renewal of an open session unexpired by both `now` and Redis's clock. */
const RENEW_LUA = `${SERVER_CLOCK_LUA}
local key = ARGV[1] .. 's:' .. ARGV[2]
local exp = redis.call('ZSCORE', ARGV[1] .. 'open', ARGV[2])
if exp == false or tonumber(exp) <= tonumber(ARGV[3]) then return 0 end
local f = redis.call('HMGET', key, 'sessionId', 'serverExpiresAtMs')
if f[1] == false then return 0 end
if f[2] and tonumber(f[2]) <= serverNow then return 0 end
redis.call('INCR', ARGV[1] .. 'epoch')
redis.call('HINCRBY', key, 'renewalCount', 1)
redis.call('HSET', key, 'lastRenewedAtMs', ARGV[3])
return 1
`;

/** ARGV: base, now, limit. */
const SWEEP_LUA = `${SWEEP_FN}
return sweep(ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]))
`;

/**
 * ARGV: base, offset, limit. Returns total, then the page's hashes (flat field lists), newest first.
 * An index entry whose hash is gone is skipped and forgotten (the page is filled from the next ones).
 */
const LIST_LUA = `${SWEEP_FN}
local base, pos, limit = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local items = {}
while #items < limit do
  local members = redis.call('ZREVRANGE', base .. 'created', pos, pos + (limit - #items) - 1)
  if #members == 0 then break end
  for _, member in ipairs(members) do
    local hash = redis.call('HGETALL', base .. 's:' .. string.sub(member, 22))
    if redis.call('HEXISTS', base .. 's:' .. string.sub(member, 22), 'sessionId') == 0 then
      forget(base, string.sub(member, 22))
      redis.call('ZREM', base .. 'created', member)
    else
      items[#items + 1] = hash
      pos = pos + 1
    end
  end
end
local out = {redis.call('ZCARD', base .. 'created')}
for _, hash in ipairs(items) do out[#out + 1] = hash end
return out
`;

/**
 * ARGV: base, now, offset, limit. Counts open sessions unexpired at `now` among `limit` index entries
 * from `offset`, forgetting entries whose hash is gone. Returns {counted, examined}.
 */
const COUNT_OPEN_LUA = `${SWEEP_FN}
local base = ARGV[1]
local ids = redis.call('ZRANGEBYSCORE', base .. 'open', '(' .. ARGV[2], '+inf', 'LIMIT', tonumber(ARGV[3]), tonumber(ARGV[4]))
local counted = 0
for _, id in ipairs(ids) do
  if redis.call('HEXISTS', base .. 's:' .. id, 'sessionId') == 1 then counted = counted + 1 else forget(base, id) end
end
return {counted, #ids}
`;

export interface RedisSessionStoreOptions {
  /** Key prefix shared by every adapter of one deployment (default `passport:`). */
  readonly prefix?: string;
  /** Sessions stored at most (default 100 000). */
  readonly maxEntries?: number;
  /** Open sessions one passport may hold (default 100). */
  readonly maxOpenPerPassport?: number;
  /**
   * Enables the read cache: `get` answers from memory while this epoch (read by every request's public
   * rate-limit take) is unchanged since the session was read from Redis. Without it every `get` reads Redis.
   */
  readonly epoch?: FleetSessionEpoch;
  /** Sessions the read cache holds at most (default 10 000; the oldest entry leaves first; 0: no cache). */
  readonly cacheEntries?: number;
  /**
   * Longest a cached session is served without reading Redis, whatever the epoch says (default 5 s). It
   * bounds what a change the epoch missed can cost: an instance of an older version closing a session
   * during a rolling deploy, or an epoch counter that climbed back to a value already seen after Redis
   * lost data.
   */
  readonly cacheMaxAgeMs?: number;
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
  private readonly epoch: FleetSessionEpoch | undefined;
  private readonly cache = new Map<string, CachedSession>();
  private readonly cacheEntries: number;
  private readonly cacheMaxAgeMs: number;

  constructor(
    private readonly redis: Redis,
    options: RedisSessionStoreOptions = {},
  ) {
    this.maxEntries = positiveCap(options.maxEntries ?? DEFAULT_REDIS_SESSION_MAX_ENTRIES, 'maxEntries');
    this.maxOpenPerPassport = positiveCap(
      options.maxOpenPerPassport ?? DEFAULT_MAX_OPEN_SESSIONS_PER_PASSPORT,
      'maxOpenPerPassport',
    );
    this.base = `${options.prefix ?? 'passport:'}{sess}:`;
    this.createScript = defineScript(redis, 'passportSessionCreate', 1, CREATE_LUA);
    this.closeScript = defineScript(redis, 'passportSessionClose', 0, CLOSE_LUA);
    this.renewScript = defineScript(redis, 'passportSessionRenew', 0, RENEW_LUA);
    this.sweepScript = defineScript(redis, 'passportSessionSweep', 0, SWEEP_LUA);
    this.listScript = defineScript(redis, 'passportSessionList', 0, LIST_LUA);
    this.getScript = defineScript(redis, 'passportSessionGet', 1, GET_LUA);
    this.countOpenScript = defineScript(redis, 'passportSessionCountOpen', 0, COUNT_OPEN_LUA);
    this.epoch = options.epoch;
    // 0 turns the cache off; NaN would leave it unbounded.
    this.cacheEntries =
      options.cacheEntries === 0 ? 0 : positiveCap(options.cacheEntries ?? 10_000, 'cacheEntries');
    this.cacheMaxAgeMs = options.cacheMaxAgeMs ?? DEFAULT_REDIS_SESSION_CACHE_MAX_AGE_MS;
    this.epoch?.onChange(() => this.cache.clear());
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
    const [flat, serverNow] = (await this.getScript(this.key(sessionId))) as [string[], number];
    const hash = fromFlat(flat);
    if (hash.sessionId === undefined) return null;
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
    return Number(await this.closeScript(this.base, sessionId, nowMs, reason)) === 1;
  }

  async recordRenewal(sessionId: string, nowMs: number): Promise<boolean> {
    this.cache.delete(sessionId);
    return Number(await this.renewScript(this.base, sessionId, nowMs)) === 1;
  }

  async list(page: { offset: number; limit: number }): Promise<SessionPage> {
    const offset = Math.max(0, Math.floor(page.offset));
    const limit = Math.max(0, Math.floor(page.limit));
    if (limit === 0) return { items: [], total: await this.redis.zcard(`${this.base}created`) };
    const [total, ...hashes] = (await this.listScript(this.base, offset, limit)) as [number, ...string[][]];
    return { items: hashes.map((flat) => toRecord(fromFlat(flat))), total: Number(total) };
  }

  /** Removes closed and expired sessions, at most 1000 per script call (Redis serves others in between). */
  async sweep(nowMs: number): Promise<number> {
    let removed = 0;
    for (;;) {
      const batch = Number(await this.sweepScript(this.base, nowMs, SWEEP_BATCH));
      removed += batch;
      if (batch < SWEEP_BATCH) return removed;
    }
  }

  /** Counted 1000 index entries per script call (a gauge: sessions opened or closed meanwhile may be missed). */
  async countOpen(nowMs: number): Promise<number> {
    let counted = 0;
    let offset = 0;
    for (;;) {
      const [kept, examined] = (await this.countOpenScript(this.base, nowMs, offset, SWEEP_BATCH)) as [
        number,
        number,
      ];
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
