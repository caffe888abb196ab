/**
 * ReplayStore on Redis. One Lua script (EVALSHA) makes `recordIfAbsent` atomic across every instance
 * sharing the server: of N concurrent calls with one key exactly one is `recorded`.
 *
 * Keys (all under one hash tag, so the script's keys share a Redis Cluster slot):
 * - `<prefix>{replay}:r:<key>`  string `firstSeenMs:expiresAtMs`, with `PX = expiresAtMs - nowMs`
 *   (the record's own lifetime; expiry is also compared with the caller's `nowMs`, exactly as the
 *   other stores do, so a record is live until `expiresAtMs` exclusive);
 * - `<prefix>{replay}:exp`      sorted set key → expiresAtMs: the count, the cap and the sweep;
 * - `<prefix>{replay}:o:<owner>` sorted set key → expiresAtMs: the per-owner quota.
 * A live record is never evicted: a full store (`maxEntries`, after dropping expired entries) refuses
 * with REPLAY_STORE_FULL and an owner at its quota with REPLAY_QUOTA_EXCEEDED. Any Redis error is
 * thrown as it is, so the caller fails closed (REPLAY_STORE_UNAVAILABLE).
 */
import { type Redis } from 'ioredis';
import { PassportError, type ReplayStore } from '@passport/core';
import { type RecordOutcome, type RecordQuota, type ReplayStoreUsage } from '@passport/core/ports';
import { defineScript } from './redis-client.js';

export const DEFAULT_REDIS_REPLAY_MAX_ENTRIES = 1_000_000;

/** Returns {1} recorded, {0, firstSeen} live, {-1} store full, {-2} owner at quota. */
const RECORD_LUA = `
local rec, idx, ownerKey = KEYS[1], KEYS[2], KEYS[3]
local member, now, expires, maxEntries, maxPerOwner = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local seen = redis.call('GET', rec)
if seen then
  local sep = string.find(seen, ':', 1, true)
  local firstSeen, seenExpires = string.sub(seen, 1, sep - 1), tonumber(string.sub(seen, sep + 1))
  if seenExpires > now then return {0, firstSeen} end
end
if maxPerOwner > 0 then
  if redis.call('ZCARD', ownerKey) >= maxPerOwner then
    redis.call('ZREMRANGEBYSCORE', ownerKey, '-inf', now)
    if redis.call('ZCARD', ownerKey) >= maxPerOwner then return {-2} end
  end
end
if redis.call('ZSCORE', idx, member) == false and redis.call('ZCARD', idx) >= maxEntries then
  local expired = redis.call('ZRANGEBYSCORE', idx, '-inf', now, 'LIMIT', 0, 1000)
  for _, k in ipairs(expired) do redis.call('DEL', ARGV[6] .. k) end
  if #expired > 0 then redis.call('ZREM', idx, unpack(expired)) end
  if redis.call('ZCARD', idx) >= maxEntries then return {-1} end
end
redis.call('SET', rec, ARGV[2] .. ':' .. ARGV[3], 'PX', math.max(1, expires - now))
redis.call('ZADD', idx, expires, member)
if maxPerOwner > 0 then
  redis.call('ZADD', ownerKey, expires, member)
  if redis.call('PTTL', ownerKey) < expires - now then redis.call('PEXPIRE', ownerKey, math.max(1, expires - now)) end
end
return {1}
`;

/** Deletes up to ARGV[2] expired records (batches: Lua's unpack is limited to ~8000 values); returns how many. */
const SWEEP_LUA = `
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, k in ipairs(expired) do
  local seen = redis.call('GET', ARGV[3] .. k)
  if seen and tonumber(string.sub(seen, string.find(seen, ':', 1, true) + 1)) <= tonumber(ARGV[1]) then redis.call('DEL', ARGV[3] .. k) end
end
if #expired > 0 then redis.call('ZREM', KEYS[1], unpack(expired)) end
return #expired
`;

const RECORDED: RecordOutcome = Object.freeze({ recorded: true });

export interface RedisReplayStoreOptions {
  /** Key prefix shared by every adapter of one deployment (default `passport:`). */
  readonly prefix?: string;
  /** Live records held at most (default 1 000 000). */
  readonly maxEntries?: number;
}

export class RedisReplayStore implements ReplayStore {
  readonly maxEntries: number;
  private readonly base: string;
  private readonly record: (...args: Array<string | number>) => Promise<unknown>;
  private readonly sweepScript: (...args: Array<string | number>) => Promise<unknown>;
  private refusedFullCount = 0;
  private refusedQuotaCount = 0;
  private lastFullAtMs: number | null = null;
  private lastFailure: number | null = null;

  constructor(
    private readonly redis: Redis,
    options: RedisReplayStoreOptions = {},
  ) {
    this.maxEntries = options.maxEntries ?? DEFAULT_REDIS_REPLAY_MAX_ENTRIES;
    this.base = `${options.prefix ?? 'passport:'}{replay}:`;
    this.record = defineScript(redis, 'passportReplayRecord', 3, RECORD_LUA);
    this.sweepScript = defineScript(redis, 'passportReplaySweep', 1, SWEEP_LUA);
  }

  async recordIfAbsent(key: string, nowMs: number, expiresAtMs: number, quota?: RecordQuota): Promise<RecordOutcome> {
    let reply: unknown;
    try {
      reply = await this.record(
        `${this.base}r:${key}`,
        `${this.base}exp`,
        `${this.base}o:${quota?.owner ?? ''}`,
        key,
        nowMs,
        expiresAtMs,
        this.maxEntries,
        quota ? quota.maxPerOwner : 0,
        `${this.base}r:`,
      );
    } catch (error) {
      this.lastFailure = Date.now();
      throw error;
    }
    const [status, firstSeen] = reply as [number, string | undefined];
    if (status === 1) return RECORDED;
    if (status === 0) return { recorded: false, firstSeenAtMs: Number(firstSeen) };
    if (status === -1) {
      this.refusedFullCount++;
      this.lastFullAtMs = nowMs;
      throw new PassportError('REPLAY_STORE_FULL');
    }
    this.refusedQuotaCount++;
    throw new PassportError('REPLAY_QUOTA_EXCEEDED', { maxPerSender: quota?.maxPerOwner });
  }

  /** Deletes expired records (in batches); returns how many were removed. */
  async sweep(nowMs: number): Promise<number> {
    let removed = 0;
    for (;;) {
      const batch = Number(await this.sweepScript(`${this.base}exp`, nowMs, 1000, `${this.base}r:`));
      removed += batch;
      if (batch < 1000) return removed;
    }
  }

  /** Records held (expired ones not yet swept included). */
  get size(): Promise<number> {
    return this.redis.zcard(`${this.base}exp`);
  }

  /** Wall-clock time of the last request this store failed to serve (not a refusal), or null. */
  get lastFailureAtMs(): number | null {
    return this.lastFailure;
  }

  async usage(): Promise<ReplayStoreUsage> {
    return {
      records: await this.size,
      maxRecords: this.maxEntries,
      refusedFull: this.refusedFullCount,
      refusedQuota: this.refusedQuotaCount,
      lastFullAtMs: this.lastFullAtMs,
    };
  }
}
