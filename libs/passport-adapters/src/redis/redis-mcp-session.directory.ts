/**
 * The fleet-wide directory of sessioned MCP sessions (STORE=redis): which session ids exist, from
 * which client address, and when each was last used. Our MCP tools and resources hold no per-session
 * state, so an instance that did not create a session can serve it with a transport made for the one
 * request, once this directory says the session is live; the session cap, the per-address cap and the
 * idle TTL are therefore counted here, for the whole fleet, and a DELETE on any instance ends the
 * session everywhere. When the fleet's cap is full, an admission takes the slot of the least recently
 * used session if it has been idle for `reclaimIdleMs`, and when its address's cap is full, that of the
 * address's own least recently used session idle as long (as the single-instance registry does).
 * A session serving a POST is not idle: `serve` marks it used until the request's lease ends (its last
 * use put ahead by the lease), and `served` at the request's end marks it used from then, unless another
 * request of the session is still served (its lease then still counts; a touch keeps it too).
 *
 * Keys (one hash tag): `<prefix>{mcp}:s:<id>` string address, `PX` = idle TTL (refreshed on use, plus
 * the lease while serving); `<prefix>{mcp}:all` and `<prefix>{mcp}:a:<address>` sorted sets id → last
 * use, ahead by the latest lease while serving (the caps; idle entries are dropped by the admitting script
 * before counting); `<prefix>{mcp}:r:<id>` sorted set of the session's requests in flight, request id →
 * its lease's end (`PX` = until the latest ends; 1.15.0).
 */
import { type RedisConnection, defineScript, refuseWhenFullLua } from './redis-client.js';

export type McpAdmission = 'admitted' | 'instance-full' | 'address-full';

/** Run first by the scripts that write: a Redis out of memory refuses them whole (refuseWhenFullLua). */
const REFUSE_WHEN_FULL_LUA = refuseWhenFullLua("ARGV[1] .. 'oom-probe'");

/** `now` is the caller's when given (tests), else Redis's clock, the one every instance shares. */
const NOW_LUA = `
local function nowOr(given)
  local n = tonumber(given)
  if n then return n end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

const ADMIT_LUA = `${NOW_LUA}
${REFUSE_WHEN_FULL_LUA}
local base, id, address, now, ttl, maxAll, maxAddress, reclaimIdle = ARGV[1], ARGV[2], ARGV[3], nowOr(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local all, mine = base .. 'all', base .. 'a:' .. address
redis.call('ZREMRANGEBYSCORE', all, '-inf', now - ttl)
redis.call('ZREMRANGEBYSCORE', mine, '-inf', now - ttl)
local victim = nil
if redis.call('ZCARD', all) >= maxAll then
  local oldest = redis.call('ZRANGE', all, 0, 0, 'WITHSCORES')
  if #oldest == 0 or tonumber(oldest[2]) > now - reclaimIdle then return -1 end
  victim = oldest[1]
end
local victimAddress = victim and redis.call('GET', base .. 's:' .. victim)
local ownSlot = (victimAddress == address) and 1 or 0
if redis.call('ZCARD', mine) - ownSlot >= maxAddress then
  -- The address's own least recently used session, idle as long, gives its slot (and the fleet's: no other
  -- address's session is then taken). Also when it is the fleet's victim already, for an address over its
  -- cap (lowered while its sessions lived): refused, it waited a Retry-After of 0 for ever.
  local own = redis.call('ZRANGE', mine, 0, 0, 'WITHSCORES')
  if #own == 0 or tonumber(own[2]) > now - reclaimIdle then return -2 end
  victim, victimAddress = own[1], address
end
if victim then
  redis.call('DEL', base .. 's:' .. victim, base .. 'r:' .. victim)
  redis.call('ZREM', all, victim)
  if victimAddress then redis.call('ZREM', base .. 'a:' .. victimAddress, victim) end
end
redis.call('SET', base .. 's:' .. id, address, 'PX', ttl)
redis.call('ZADD', all, now, id)
redis.call('ZADD', mine, now, id)
-- Never shortened: a session of the address serving a request holds the set a lease longer.
if redis.call('PTTL', mine) < ttl then redis.call('PEXPIRE', mine, ttl) end
return 1
`;

/**
 * Marks session `id` used now. With `request`, a request of the session: from now on served, until now +
 * `lease` (`lease` > 0), or ended (`lease` 0). While any request of the session is served (its lease not
 * over), the session counts as used until the latest lease's end: one request ending, or a touch by
 * another (a GET), does not make it idle while another is still served (a review of 1.14.1: the end of a
 * quick POST beside a slow read let a reclaim take the session mid-read).
 */
const TOUCH_LUA = `${NOW_LUA}
${REFUSE_WHEN_FULL_LUA}
local base, id, now, ttl, lease, request = ARGV[1], ARGV[2], nowOr(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]) or 0, ARGV[6] or ''
local address = redis.call('GET', base .. 's:' .. id)
if not address then return 0 end
local mine, serving = base .. 'a:' .. address, base .. 'r:' .. id
redis.call('ZREMRANGEBYSCORE', serving, '-inf', now)
if request ~= '' then
  if lease > 0 then redis.call('ZADD', serving, now + lease, request) else redis.call('ZREM', serving, request) end
end
local used = now
local latest = redis.call('ZRANGE', serving, -1, -1, 'WITHSCORES')
if #latest > 0 then
  used = math.max(now, tonumber(latest[2]))
  redis.call('PEXPIRE', serving, math.max(1, used - now))
end
local ahead = used - now
redis.call('PEXPIRE', base .. 's:' .. id, ttl + ahead)
redis.call('ZADD', base .. 'all', used, id)
redis.call('ZADD', mine, used, id)
-- Never shortened: another session of the address may be serving a request (its lease).
if redis.call('PTTL', mine) < ttl + ahead then redis.call('PEXPIRE', mine, ttl + ahead) end
return 1
`;

const REMOVE_LUA = `
local base, id = ARGV[1], ARGV[2]
local address = redis.call('GET', base .. 's:' .. id)
if not address then return 0 end
redis.call('DEL', base .. 's:' .. id, base .. 'r:' .. id)
redis.call('ZREM', base .. 'all', id)
redis.call('ZREM', base .. 'a:' .. address, id)
return 1
`;

/**
 * How long a refused initialize waits (ms, Redis's clock): until the least recently used session of the
 * fleet (a full fleet) or of the address (an address at its cap) may be reclaimed; 1 s when that session
 * is serving a POST (then all are: its end may come any moment, as the single-instance registry says).
 */
const RETRY_AFTER_LUA = `${NOW_LUA}
local base, refusal, address, now, reclaimIdle = ARGV[1], ARGV[2], ARGV[3], nowOr(ARGV[4]), tonumber(ARGV[6])
local set, idle = base .. 'all', reclaimIdle
if refusal == 'address-full' then set = base .. 'a:' .. address end
local oldest = redis.call('ZRANGE', set, 0, 0, 'WITHSCORES')
if #oldest == 0 then return idle end
-- Every session serving (last use ahead by its lease): a slot frees once one ends, as on one instance.
if tonumber(oldest[2]) > now then return 1000 end
return math.max(0, tonumber(oldest[2]) + idle - now)
`;

/** Sessions used within the idle TTL (Redis's clock): the live ones, whether or not an admission has pruned the rest yet. */
const COUNT_LIVE_LUA = `${NOW_LUA}
local base, now, ttl = ARGV[1], nowOr(ARGV[2]), tonumber(ARGV[3])
return redis.call('ZCOUNT', base .. 'all', '(' .. (now - ttl), '+inf')
`;

export interface RedisMcpSessionDirectoryOptions {
  readonly prefix?: string | undefined;
  readonly maxSessions: number;
  readonly maxSessionsPerAddress: number;
  /** Idle time after which a session is gone (ms). */
  readonly ttlMs: number;
  /**
   * Idle time after which a session's slot may be taken when the fleet's cap, or its address's, is full
   * (ms; default `ttlMs`).
   */
  readonly reclaimIdleMs?: number | undefined;
  /**
   * How long a session serving a request counts as used from the request's start when its end is never
   * told (an instance killed mid-request; ms, default MCP_FLEET_SERVING_LEASE_MS): a request still running
   * past it may lose its slot to a reclaim.
   */
  readonly servingLeaseMs?: number | undefined;
}

/** The default serving lease: longer than any request of ours runs (chain reads are bounded far below). */
export const MCP_FLEET_SERVING_LEASE_MS = 120_000;

type Script = (...args: Array<string | number>) => Promise<unknown>;

export class RedisMcpSessionDirectory {
  private readonly base: string;
  private readonly admitScript: Script;
  private readonly touchScript: Script;
  private readonly removeScript: Script;
  private readonly retryAfterScript: Script;
  private readonly countLiveScript: Script;

  constructor(
    redis: RedisConnection,
    readonly options: RedisMcpSessionDirectoryOptions,
  ) {
    this.base = `${options.prefix ?? 'passport:'}{mcp}:`;
    // Each script declares keys under the directory's hash tag (it names the keys it uses from ARGV's
    // base; KEYS route it): a Redis Cluster client sends a script to the master of its keys' slot, and
    // one that declared none went to any master.
    this.admitScript = defineScript(redis, 'passportMcpAdmit', 3, ADMIT_LUA);
    this.touchScript = defineScript(redis, 'passportMcpTouch', 2, TOUCH_LUA);
    this.removeScript = defineScript(redis, 'passportMcpRemove', 2, REMOVE_LUA);
    this.retryAfterScript = defineScript(redis, 'passportMcpRetryAfter', 2, RETRY_AFTER_LUA);
    this.countLiveScript = defineScript(redis, 'passportMcpCountLive', 1, COUNT_LIVE_LUA);
  }

  /**
   * Registers session `id` of `address` if both fleet-wide caps allow. Times are Redis's unless `nowMs`
   * is given: with a 60 s reclaim, an instance whose clock runs a minute behind would make sessions in
   * use look idle.
   */
  async admit(id: string, address: string, nowMs?: number): Promise<McpAdmission> {
    const { ttlMs, maxSessions, maxSessionsPerAddress } = this.options;
    const reclaimIdleMs = Math.min(this.options.reclaimIdleMs ?? ttlMs, ttlMs);
    const status = Number(
      await this.admitScript(
        `${this.base}s:${id}`,
        `${this.base}all`,
        `${this.base}a:${address}`,
        this.base,
        id,
        address,
        nowMs ?? '',
        ttlMs,
        maxSessions,
        maxSessionsPerAddress,
        reclaimIdleMs,
      ),
    );
    return status === 1 ? 'admitted' : status === -1 ? 'instance-full' : 'address-full';
  }

  /**
   * Marks a live session as used (its idle TTL starts again; a request of it still served keeps it used
   * until that request's lease ends); false when it is unknown, idle-expired or deleted.
   */
  async touch(id: string, nowMs?: number): Promise<boolean> {
    return this.mark(id, 0, '', nowMs);
  }

  /**
   * Marks a live session as serving `request` (an id unique to the request) from now on: not idle (so no
   * cap's reclaim takes it) until `served` at the request's end, or the serving lease ends; false when it
   * is unknown, idle-expired or deleted. With two requests of one session at once, the session is used
   * until the later one ends.
   */
  async serve(id: string, request: string, nowMs?: number): Promise<boolean> {
    return this.mark(id, this.options.servingLeaseMs ?? MCP_FLEET_SERVING_LEASE_MS, request, nowMs);
  }

  /**
   * Marks the end of `request` of session `id` (used from now on, unless another request of it is still
   * served); false when the session is unknown, idle-expired or deleted.
   */
  async served(id: string, request: string, nowMs?: number): Promise<boolean> {
    return this.mark(id, 0, request, nowMs);
  }

  private async mark(
    id: string,
    leaseMs: number,
    request: string,
    nowMs: number | undefined,
  ): Promise<boolean> {
    return (
      Number(
        await this.touchScript(
          `${this.base}s:${id}`,
          `${this.base}all`,
          this.base,
          id,
          nowMs ?? '',
          this.options.ttlMs,
          leaseMs,
          request,
        ),
      ) === 1
    );
  }

  /** Ends a session for the whole fleet; false when it did not exist. */
  async remove(id: string): Promise<boolean> {
    return Number(await this.removeScript(`${this.base}s:${id}`, `${this.base}all`, this.base, id)) === 1;
  }

  /** Sessions of the whole fleet used within the idle TTL (the operators' gauge). */
  async countLive(nowMs?: number): Promise<number> {
    return Number(await this.countLiveScript(`${this.base}all`, this.base, nowMs ?? '', this.options.ttlMs));
  }

  /**
   * Milliseconds until an initialize refused with `refusal` from `address` may be admitted: when the
   * least recently used session of the fleet, or of the address, may be reclaimed.
   */
  async retryAfterMs(
    refusal: Exclude<McpAdmission, 'admitted'>,
    address: string,
    nowMs?: number,
  ): Promise<number> {
    const { ttlMs } = this.options;
    const reclaimIdleMs = Math.min(this.options.reclaimIdleMs ?? ttlMs, ttlMs);
    return Number(
      await this.retryAfterScript(
        `${this.base}all`,
        `${this.base}a:${address}`,
        this.base,
        refusal,
        address,
        nowMs ?? '',
        ttlMs,
        reclaimIdleMs,
      ),
    );
  }
}
