import { PassportError } from '@passport/core';
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
  local expired = redis.call('ZRANGEBYSCORE', idx, '-inf', now, 'LIMIT', 0, 10000)
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
/** Deletes up to ARGV[2] expired records; returns how many. */
const SWEEP_LUA = `
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, k in ipairs(expired) do
  local seen = redis.call('GET', ARGV[3] .. k)
  if seen and tonumber(string.sub(seen, string.find(seen, ':', 1, true) + 1)) <= tonumber(ARGV[1]) then redis.call('DEL', ARGV[3] .. k) end
end
if #expired > 0 then redis.call('ZREM', KEYS[1], unpack(expired)) end
return #expired
`;
const RECORDED = Object.freeze({ recorded: true });
export class RedisReplayStore {
    constructor(redis, options = {}) {
        this.redis = redis;
        this.refusedFullCount = 0;
        this.refusedQuotaCount = 0;
        this.lastFullAtMs = null;
        this.lastFailure = null;
        this.maxEntries = options.maxEntries ?? DEFAULT_REDIS_REPLAY_MAX_ENTRIES;
        this.base = `${options.prefix ?? 'passport:'}{replay}:`;
        this.record = defineScript(redis, 'passportReplayRecord', 3, RECORD_LUA);
        this.sweepScript = defineScript(redis, 'passportReplaySweep', 1, SWEEP_LUA);
    }
    async recordIfAbsent(key, nowMs, expiresAtMs, quota) {
        let reply;
        try {
            reply = await this.record(`${this.base}r:${key}`, `${this.base}exp`, `${this.base}o:${quota?.owner ?? ''}`, key, nowMs, expiresAtMs, this.maxEntries, quota ? quota.maxPerOwner : 0, `${this.base}r:`);
        }
        catch (error) {
            this.lastFailure = Date.now();
            throw error;
        }
        const [status, firstSeen] = reply;
        if (status === 1)
            return RECORDED;
        if (status === 0)
            return { recorded: false, firstSeenAtMs: Number(firstSeen) };
        if (status === -1) {
            this.refusedFullCount++;
            this.lastFullAtMs = nowMs;
            throw new PassportError('REPLAY_STORE_FULL');
        }
        this.refusedQuotaCount++;
        throw new PassportError('REPLAY_QUOTA_EXCEEDED', { maxPerSender: quota?.maxPerOwner });
    }
    /** Deletes expired records (in batches); returns how many were removed. */
    async sweep(nowMs) {
        let removed = 0;
        for (;;) {
            const batch = Number(await this.sweepScript(`${this.base}exp`, nowMs, 1000, `${this.base}r:`));
            removed += batch;
            if (batch < 1000)
                return removed;
        }
    }
    /** Records held (expired ones not yet swept included). */
    get size() {
        return this.redis.zcard(`${this.base}exp`);
    }
    /** Wall-clock time of the last request this store failed to serve (not a refusal), or null. */
    get lastFailureAtMs() {
        return this.lastFailure;
    }
    async usage() {
        return {
            records: await this.size,
            maxRecords: this.maxEntries,
            refusedFull: this.refusedFullCount,
            refusedQuota: this.refusedQuotaCount,
            lastFullAtMs: this.lastFullAtMs,
        };
    }
}
//# sourceMappingURL=redis-replay.store.js.map