/**
 * RateLimitStore on Redis: each `take` is one round trip, a Lua script (EVALSHA; one invocation for
 * the takes of one event-loop turn, see defineBatchedScript) running the same
 * token-bucket arithmetic as the core's `takeToken` (burst, refill, float tolerance, retry-after), so
 * every instance sharing the server drains one bucket and concurrent takes never lose an update.
 *
 * Keys (one hash tag per namespace, so the script's keys share a Redis Cluster slot):
 * - `<prefix>{rl:<ns>}:b:<key>` hash `t` (tokens), `u` (updated ms: the bucket's time), `o` (Redis's clock
 *   less the bucket's time when that time last moved: how much time has passed since, for a caller whose
 *   own clock cannot say), with `PX` until the bucket is full again (a full bucket means the same as no
 *   bucket);
 * - `<prefix>{rl:<ns>}:lru`  sorted set key → updated ms (least recently used first, for the cap);
 * - `<prefix>{rl:<ns>}:full` sorted set key → when the bucket is full again (the sweep).
 * Bounded like the SQLite adapter: a new bucket beyond `maxEntries` first drops full buckets, then the
 * least recently used ones (which resets them to full).
 */
import { positiveCap, type BucketPolicy, type RateLimitStore, type TakeResult } from '@passport/core/ports';
import { BUCKET_CLOCK_LAG_TOLERANCE_MS } from '@passport/core/rate-limit';
import {
  type RedisConnection,
  defineScript,
  luaNumber,
  luaString,
  SERVER_CLOCK_LUA,
} from './redis-client.js';
import {
  type BatchedScriptCall,
  type BatchedScriptDefinition,
  defineBatchedScript,
} from './redis-batched-script.js';
import { type FleetSessionEpoch } from './fleet-session-epoch.js';

export const DEFAULT_REDIS_RATE_LIMIT_MAX_ENTRIES = 100_000;

/**
 * The session epoch as `<dataset id>:<counter>`. The counter starts again from 0 when Redis loses its
 * data (a flush, a restart without persistence), so a counter alone could read the same before and after
 * the loss and keep sessions the loss forgot in the instances' read caches (e.g. 5 s after a
 * FLUSHALL). The dataset id is made (from Redis's clock) by the first take that finds it missing, so it
 * differs after every loss.
 */
const EPOCH_LUA = `local epochId = redis.call('GET', KEYS[4])
if not epochId then
  local t = redis.call('TIME')
  redis.call('SET', KEYS[4], t[1] .. '.' .. t[2], 'NX')
  epochId = redis.call('GET', KEYS[4])
end
local epoch = epochId .. ':' .. (redis.call('GET', KEYS[3]) or '0')`;

/**
 * The take call of one store, batched (defineBatchedScript: the takes of one event-loop turn in one
 * invocation, in the order they were made). The keys it writes are declared (the `lru` and `full` sets
 * and, with the epoch, the epoch key and its dataset-id key once; per call the bucket; all under one hash tag, so one Redis
 * Cluster slot), so that Cluster refuses a call while that slot migrates before anything is written. Its
 * fixed values (the bucket key prefix, the cap) are built into the script; per call: capacity, refill,
 * now, cost. Numbers the caller sent are passed on as the strings they came as (no Lua number
 * formatting), and converted once while the calls send the same text (a conversion costs Redis ~2 000
 * instructions). A take replies `remaining` (a number) when allowed, {remaining, retry} when refused; with
 * the epoch the invocation also answers the session epoch and Redis's clock once (no take changes them).
 * Takes of one bucket in a row (one busy client's requests: 5.5 in a row on the verify bench) read it
 * once and write it once, when the invocation takes another bucket or after its calls: on the verify
 * bench Redis's instructions per take fell from ~85 800 to ~60 500 (scripts/redis-script-instructions.sh,
 * 3 takes an invocation) and the bucket's commands per verify from 5 to 0.9. A new bucket is written at once
 * (the cap counts it), and a deferred write Redis refuses fails every take it was for.
 * Mirrors takeToken in libs/passport-core/src/rate-limit/token-bucket.ts (kept equal by the contract suite).
 */
function takeDefinition(base: string, maxEntries: number, epochKey?: string): BatchedScriptDefinition {
  const bucketPrefix = `${base}b:`;
  const withEpoch = epochKey !== undefined;
  return {
    prelude: `${SERVER_CLOCK_LUA}
local lru, full, prefix = KEYS[1], KEYS[2], ${luaString(bucketPrefix)}
local eps = 1e-9
local MAX = 9007199254740991
local capacityText, refillText, costText, capacity, refill, cost
-- The last bucket taken, written when a call takes another bucket or after the calls (flush): takes of one
-- busy bucket in a row (one client's concurrent requests) write it once an invocation. Its numbers are
-- those the write would store (%.17g gives a number back exactly), so a take reads the same either way.
local pending
local function writeBucket(p)
  if p.offset then
    redis.call('HSET', p.bucket, 't', string.format('%.17g', p.tokens), 'u', p.nowText, 'o', string.format('%.17g', p.offset))
  else
    redis.call('HSET', p.bucket, 't', string.format('%.17g', p.tokens), 'u', p.nowText)
  end
  -- Whole ms: PEXPIRE refuses a fraction, which a fractional clock (a Clock an embedder wrote) gives.
  local ttl = math.ceil(p.fullAt - p.now)
  if ttl > 0 and ttl < 9e15 then redis.call('PEXPIRE', p.bucket, ttl) elseif ttl <= 0 then redis.call('PEXPIRE', p.bucket, 1) else redis.call('PERSIST', p.bucket) end
  redis.call('ZADD', lru, p.nowText, p.member)
  redis.call('ZADD', full, p.fullAt, p.member)
end
-- A write that fails fails every take it was written for (their replies become its error).
local function flush()
  local p = pending
  if p == nil then return end
  pending = nil
  local ok, err = pcall(writeBucket, p)
  if not ok then
    local text = type(err) == 'table' and err.err or tostring(err)
    for _, n in ipairs(p.calls) do replies[n] = text end
  end
end
${withEpoch ? EPOCH_LUA : ''}`,
    sharedKeys: withEpoch
      ? [`${base}lru`, `${base}full`, epochKey, `${epochKey}-id`]
      : [`${base}lru`, `${base}full`],
    callKeys: ['bucket'],
    callArgs: ['capacityArg', 'refillArg', 'nowArg', 'costArg'],
    callBody: `
if capacityArg ~= capacityText then capacityText, capacity = capacityArg, tonumber(capacityArg) end
if refillArg ~= refillText then refillText, refill = refillArg, tonumber(refillArg) end
if costArg ~= costText then costText, cost = costArg, tonumber(costArg) end
-- The bucket's time: the caller's clock, but never ahead of Redis's and never behind the bucket's last
-- update. Instances' clocks differ; an instance running ahead would otherwise refill the bucket by its
-- lead on every take (alternating instances: every request allowed), one running behind would write an
-- earlier update that the next instance counts again.
local callerClock = tonumber(nowArg)
local callerNow = earlier(callerClock)
local now = callerNow
local same = pending ~= nil and pending.bucket == bucket
-- offset: Redis's clock less the bucket's time when the bucket's time was last moved (field o; missing in a
-- bucket an older release wrote), so Redis can tell how much time has passed since, on any clock.
local member, isNew, stored, updated, offset
if same then
  member, isNew, stored, updated, offset = pending.member, false, pending.tokens, pending.now, pending.offset
else
  flush()
  member = string.sub(bucket, ${Buffer.byteLength(bucketPrefix) + 1})
  local state = redis.call('HMGET', bucket, 't', 'u', 'o')
  isNew = state[1] == false
  if not isNew then
    stored, updated = tonumber(state[1]), tonumber(state[2])
    if state[3] then
      offset = tonumber(state[3])
      -- Redis's clock when the bucket's time last moved (its time plus o) cannot be ahead of Redis's clock
      -- now: an o that says so is stale (an older release moved the time and kept the field; 1.10.0 beside
      -- 1.11.0). Taken as moved now on Redis's clock: no time counted since, so no refill beyond the
      -- caller's and no lag in Retry-After (a stale o of an hour froze the bucket for the hour-behind
      -- instance: Retry-After 3601 on every refusal), and written back with the bucket.
      if updated + offset > serverNow + ${BUCKET_CLOCK_LAG_TOLERANCE_MS} then offset = serverNow - updated end
    end
  end
end
local level = capacity
if not isNew then
  local elapsed
  if updated > now then
    if updated - now <= ${BUCKET_CLOCK_LAG_TOLERANCE_MS} then
      -- A small lag (another instance's clock): the take counts from the update, its Retry-After the lag
      -- included.
      now = updated
    elseif updated <= serverNow + ${BUCKET_CLOCK_LAG_TOLERANCE_MS} then
      -- Far behind the update, and Redis's clock was not set back: this caller's clock was set back (or
      -- lags). Taking its time would let it, alternating with a true instance, refill the bucket by its
      -- lag on every pair of requests (70 s behind: 116 of 116 allowed against a bound of 11, measured);
      -- keeping the update froze the bucket until its clock caught up, every refusal saying the lag (an
      -- hour's step back: Retry-After 3600). The time passed since the bucket's time was last moved is
      -- Redis's to tell: the bucket's time goes on by that, and so does the Retry-After.
      if offset then
        local redisBucketNow = serverNow - offset
        now = math.max(updated, redisBucketNow)
        callerNow = redisBucketNow
      else
        now = updated
      end
    end
    -- Else the update is ahead of Redis's own clock too (the clock was set back, Redis's too): the take's
    -- time, refilling nothing.
  elseif offset and offset > ${BUCKET_CLOCK_LAG_TOLERANCE_MS} and callerNow >= serverNow - ${BUCKET_CLOCK_LAG_TOLERANCE_MS} then
    -- The bucket's time was last moved by a clock far behind Redis's and this caller agrees with Redis:
    -- only the time passed on Redis's clock refills (an instance an hour behind made and drained a
    -- bucket; a true instance then refilled it by the hour, a second burst).
    elapsed = math.min(now - updated, math.max(0, serverNow - offset - updated))
  end
  if elapsed == nil then elapsed = math.max(0, now - updated) end
  level = math.min(capacity, stored + elapsed * refill)
  -- The bucket's time moved: anchored at Redis's clock again (a take that leaves it keeps its anchor).
  if now ~= updated then offset = serverNow - now end
else
  offset = serverNow - now
end
local nowText = now == callerClock and nowArg or string.format('%.17g', now)
local allowed, remaining, retry, tokens = 0, 0, 0, level
if level >= cost - eps then
  tokens = math.max(0, level - cost)
  allowed, remaining = 1, math.floor(tokens)
else
  remaining = math.floor(level + eps)
  if refill > 0 and cost <= capacity then retry = math.max(1, math.ceil((cost - level) / refill - eps)) + (now - callerNow) else retry = MAX end
end
local fullAt = now
local missing = capacity - tokens
if missing > 0 then
  if refill > 0 then fullAt = math.min(MAX, now + math.ceil(missing / refill)) else fullAt = MAX end
end
if not isNew then
  -- Written later (flush): by then this bucket's last take of the run.
  if same then
    pending.tokens, pending.now, pending.nowText, pending.fullAt, pending.offset = tokens, now, nowText, fullAt, offset
    pending.calls[#pending.calls + 1] = callNo
  else
    pending = {bucket = bucket, member = member, tokens = tokens, now = now, nowText = nowText, fullAt = fullAt, offset = offset, calls = {callNo}}
  end
  if allowed == 1 then return remaining end
  return {remaining, retry}
end
-- A new bucket is written at once: the cap's count below includes it.
writeBucket({bucket = bucket, member = member, tokens = tokens, now = now, nowText = nowText, fullAt = fullAt, offset = offset})
if redis.call('ZCARD', lru) > ${luaNumber(maxEntries)} then
  local done = redis.call('ZRANGEBYSCORE', full, '-inf', now, 'LIMIT', 0, 1000)
  for _, k in ipairs(done) do
    if k ~= member then
      redis.call('DEL', prefix .. k)
      redis.call('ZREM', lru, k)
      redis.call('ZREM', full, k)
    end
  end
  local excess = redis.call('ZCARD', lru) - ${luaNumber(maxEntries)}
  if excess > 0 then
    local oldest = redis.call('ZRANGE', lru, 0, excess - 1)
    for _, k in ipairs(oldest) do
      redis.call('DEL', prefix .. k)
      redis.call('ZREM', lru, k)
      redis.call('ZREM', full, k)
    end
  end
end
if allowed == 1 then return remaining end
return {remaining, retry}`,
    epilogue: 'flush()',
    ...(withEpoch ? { invocationReply: '{epoch, serverNow}' } : {}),
  };
}

/**
 * Forgets up to 1000 buckets full again by ARGV[1] or Redis's clock, whichever is earlier (Lua's unpack
 * is limited to ~8000 values); returns {forgotten, examined}. A sweep by a caller that agrees with Redis
 * (within 60 s) judges a bucket last moved by a clock more than 60 s behind Redis's (`o`) as its take
 * would, by Redis's time since that move: such a bucket is full on Redis's clock at its full time plus
 * `o` (when its PX ends), and is looked at again then. Judged by its own time, a bucket an hour-behind
 * instance drained was full at once, and a true instance's sweep gave its next takes a second burst.
 */
const SWEEP_LUA = `${SERVER_CLOCK_LUA}
local caller = tonumber(ARGV[1])
local agrees = caller >= serverNow - ${BUCKET_CLOCK_LAG_TOLERANCE_MS}
local found = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', earlier(caller), 'WITHSCORES', 'LIMIT', 0, 1000)
local done = {}
for i = 1, #found, 2 do
  local k, fullAt = found[i], tonumber(found[i + 1])
  local offset = agrees and tonumber(redis.call('HGET', ARGV[2] .. k, 'o'))
  if offset and offset > ${BUCKET_CLOCK_LAG_TOLERANCE_MS} and fullAt + offset > serverNow then
    -- Never past the key's own end: a score already moved (looked at again while a take that kept the
    -- anchor has the key live) would move by a whole o once more, its entries outliving the key by o.
    local left = redis.call('PTTL', ARGV[2] .. k)
    redis.call('ZADD', KEYS[2], left > 0 and math.min(fullAt + offset, serverNow + left) or fullAt + offset, k)
  else
    redis.call('DEL', ARGV[2] .. k)
    redis.call('ZREM', KEYS[1], k)
    done[#done + 1] = k
  end
end
if #done > 0 then redis.call('ZREM', KEYS[2], unpack(done)) end
return {#done, #found / 2}
`;

export interface RedisRateLimitStoreOptions {
  /** Key prefix shared by every adapter of one deployment (default `passport:`). */
  readonly prefix?: string | undefined;
  /** Bucket namespace, e.g. `public` (per address) or `passport` (per passport). */
  readonly namespace?: string | undefined;
  /** Buckets held at most (default 100 000). */
  readonly maxEntries?: number | undefined;
  /**
   * Each take also reads the fleet's session epoch into this object (for the session read cache). The
   * buckets then live under the sessions' hash tag (`<prefix>{sess}:rl:<ns>:`), so the script's keys
   * share one Redis Cluster slot with the epoch.
   */
  readonly sessionEpoch?: FleetSessionEpoch | undefined;
  /** Under load, take invocations at most this often (ms; default 0): DEFAULT_REDIS_INVOCATION_INTERVAL_MS. */
  readonly invocationIntervalMs?: number | undefined;
}

export class RedisRateLimitStore implements RateLimitStore {
  readonly maxEntries: number;
  private readonly base: string;
  private readonly takeScript: BatchedScriptCall;
  private readonly epoch: FleetSessionEpoch | undefined;
  private readonly sweepScript: (...args: Array<string | number>) => Promise<unknown>;
  private readonly bucketPrefix: string;
  /** The last refill rate seen and its text for the script (a store mostly sees one or a few rates). */
  private lastRefill = Number.NaN;
  private lastRefillArg = '';

  constructor(
    private readonly redis: RedisConnection,
    options: RedisRateLimitStoreOptions = {},
  ) {
    this.maxEntries = positiveCap(options.maxEntries ?? DEFAULT_REDIS_RATE_LIMIT_MAX_ENTRIES, 'maxEntries');
    const prefix = options.prefix ?? 'passport:';
    const namespace = options.namespace ?? 'default';
    this.epoch = options.sessionEpoch;
    this.base = this.epoch ? `${prefix}{sess}:rl:${namespace}:` : `${prefix}{rl:${namespace}}:`;
    this.bucketPrefix = `${this.base}b:`;
    const epoch = this.epoch;
    this.takeScript = defineBatchedScript(
      redis,
      'passportRateTake',
      takeDefinition(this.base, this.maxEntries, epoch ? `${prefix}{sess}:epoch` : undefined),
      // Read before any take of the invocation resolves: a request reads sessions after its take.
      epoch
        ? {
            invocationIntervalMs: options.invocationIntervalMs,
            onInvocationReply: (reply, roundTripMs) => {
              const [current, serverNowMs] = reply as [string, number];
              epoch.observe(String(current), Number(serverNowMs), roundTripMs);
            },
          }
        : { invocationIntervalMs: options.invocationIntervalMs },
    );
    this.sweepScript = defineScript(redis, 'passportRateSweep', 2, SWEEP_LUA);
  }

  async take(key: string, policy: BucketPolicy, nowMs: number, cost = 1): Promise<TakeResult> {
    // Refused here, alone: in the script a NaN fails only at the bucket's write, which a run of takes of
    // one bucket shares (a review: every take of the run failed with it, or it was answered allowed).
    if (!Number.isFinite(nowMs)) throw new RangeError(`take: nowMs must be a finite number, got ${nowMs}`);
    if (policy.refillPerMs !== this.lastRefill) {
      this.lastRefill = policy.refillPerMs;
      this.lastRefillArg = policy.refillPerMs.toPrecision(17);
    }
    let reply: number | [number, number];
    try {
      reply = (await this.takeScript(
        this.bucketPrefix + key,
        policy.capacity,
        this.lastRefillArg,
        nowMs,
        cost,
      )) as typeof reply;
    } catch (error) {
      this.epoch?.forget();
      throw error;
    }
    if (typeof reply === 'number') return { allowed: true, remaining: reply, retryAfterMs: 0 };
    return { allowed: false, remaining: reply[0], retryAfterMs: reply[1] };
  }

  async sweep(nowMs: number): Promise<number> {
    let removed = 0;
    for (;;) {
      const [forgotten, examined] = (await this.sweepScript(
        `${this.base}lru`,
        `${this.base}full`,
        nowMs,
        `${this.base}b:`,
      )) as [number, number];
      removed += Number(forgotten);
      if (Number(examined) < 1000) return removed;
    }
  }

  /** Buckets held (full ones not yet swept included). */
  get size(): Promise<number> {
    return this.redis.zcard(`${this.base}lru`);
  }
}
