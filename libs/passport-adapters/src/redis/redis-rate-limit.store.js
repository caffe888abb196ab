import { defineScript } from './redis-client.js';
export const DEFAULT_REDIS_RATE_LIMIT_MAX_ENTRIES = 100_000;
/** Mirrors takeToken in libs/passport-core/src/rate-limit/token-bucket.ts (kept equal by the contract suite). */
const TAKE_LUA = `
local bucket, lru, full = KEYS[1], KEYS[2], KEYS[3]
local capacity, refill, now, maxEntries, member = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local eps = 1e-9
local MAX = 9007199254740991
local state = redis.call('HMGET', bucket, 't', 'u')
local isNew = state[1] == false
local level = capacity
if not isNew then
  local elapsed = math.max(0, now - tonumber(state[2]))
  level = math.min(capacity, tonumber(state[1]) + elapsed * refill)
end
local allowed, remaining, retry, tokens = 0, 0, 0, level
if level >= 1 - eps then
  tokens = math.max(0, level - 1)
  allowed, remaining = 1, math.floor(tokens)
else
  if refill > 0 then retry = math.max(1, math.ceil((1 - level) / refill - eps)) else retry = MAX end
end
local fullAt = now
local missing = capacity - tokens
if missing > 0 then
  if refill > 0 then fullAt = math.min(MAX, now + math.ceil(missing / refill)) else fullAt = MAX end
end
redis.call('HSET', bucket, 't', string.format('%.17g', tokens), 'u', ARGV[3])
local ttl = fullAt - now
if ttl > 0 and ttl < 9e15 then redis.call('PEXPIRE', bucket, ttl) elseif ttl <= 0 then redis.call('PEXPIRE', bucket, 1) else redis.call('PERSIST', bucket) end
redis.call('ZADD', lru, now, member)
redis.call('ZADD', full, fullAt, member)
if isNew and redis.call('ZCARD', lru) > maxEntries then
  local prefix = ARGV[6]
  local done = redis.call('ZRANGEBYSCORE', full, '-inf', now)
  for _, k in ipairs(done) do
    if k ~= member then
      redis.call('DEL', prefix .. k)
      redis.call('ZREM', lru, k)
      redis.call('ZREM', full, k)
    end
  end
  local excess = redis.call('ZCARD', lru) - maxEntries
  if excess > 0 then
    local oldest = redis.call('ZRANGE', lru, 0, excess - 1)
    for _, k in ipairs(oldest) do
      redis.call('DEL', prefix .. k)
      redis.call('ZREM', lru, k)
      redis.call('ZREM', full, k)
    end
  end
end
return {allowed, remaining, retry}
`;
/** Forgets buckets full again by ARGV[1]; returns how many. */
const SWEEP_LUA = `
local done = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, 10000)
for _, k in ipairs(done) do
  redis.call('DEL', ARGV[2] .. k)
  redis.call('ZREM', KEYS[1], k)
end
if #done > 0 then redis.call('ZREM', KEYS[2], unpack(done)) end
return #done
`;
export class RedisRateLimitStore {
    constructor(redis, options = {}) {
        this.redis = redis;
        this.maxEntries = options.maxEntries ?? DEFAULT_REDIS_RATE_LIMIT_MAX_ENTRIES;
        this.base = `${options.prefix ?? 'passport:'}{rl:${options.namespace ?? 'default'}}:`;
        this.takeScript = defineScript(redis, 'passportRateTake', 3, TAKE_LUA);
        this.sweepScript = defineScript(redis, 'passportRateSweep', 2, SWEEP_LUA);
    }
    async take(key, policy, nowMs) {
        const [allowed, remaining, retryAfterMs] = (await this.takeScript(`${this.base}b:${key}`, `${this.base}lru`, `${this.base}full`, policy.capacity, policy.refillPerMs.toPrecision(17), nowMs, this.maxEntries, key, `${this.base}b:`));
        return { allowed: allowed === 1, remaining, retryAfterMs };
    }
    async sweep(nowMs) {
        let removed = 0;
        for (;;) {
            const batch = Number(await this.sweepScript(`${this.base}lru`, `${this.base}full`, nowMs, `${this.base}b:`));
            removed += batch;
            if (batch < 10000)
                return removed;
        }
    }
    /** Buckets held (full ones not yet swept included). */
    get size() {
        return this.redis.zcard(`${this.base}lru`);
    }
}
//# sourceMappingURL=redis-rate-limit.store.js.map