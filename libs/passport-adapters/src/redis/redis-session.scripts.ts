/**
 * The Lua scripts of the Redis session store (RedisSessionStore): each operation is one script, so it is
 * atomic on Redis; every key lies under the store's `{sess}` hash tag (one Redis Cluster slot).
 */
import { refuseWhenFullLua, SERVER_CLOCK_LUA } from './redis-client.js';

/** Sessions one sweep script removes at most, so no sweep blocks Redis for long (the caller loops). */
export const SWEEP_BATCH = 1000;

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
 * KEYS[1] = the session hash (the other KEYS, the store's index keys and the passport's set, only route
 * the call: see RedisSessionStore). ARGV: base, now, maxEntries, maxPerPassport, sessionId, tokenId, ttl,
 * lifetime, then the record's fields as name/value pairs. Returns 1 created, -1 exists, -2 full.
 */
export const CREATE_LUA = `${SWEEP_FN}
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

/**
 * KEYS[1] = the session hash, KEYS[2] = `lost-through`. Returns the hash (flat), Redis's clock (ms), and
 * the creation order through which sessions are forgotten (a loss), or false.
 */
export const GET_LUA = `${SERVER_CLOCK_LUA}
return {redis.call('HGETALL', KEYS[1]), serverNow, redis.call('HGET', KEYS[2], 'through')}
`;

/**
 * KEYS route the call (the store's index keys, then `lost-through`). ARGV: base. Redis lost data (a
 * restart from an older snapshot, a flush): every session it holds now was stored before the loss, and
 * may be one closed since (a logout undone). Sessions created through the current `seq` are forgotten
 * from here on (`lost-through` hash: `through`, raised, never lowered), and the epoch moves so that every
 * instance's read cache drops them. Once per run of the Redis server for one dataset (`run`: its
 * run_id): an instance that notices the same loss later (paused or cut off for longer than the hold)
 * must not forget the sessions opened since the first forget (a review). A restart, a failover and a
 * flush each leave a hash without this run's id. Returns the value in force.
 */
/**
 * KEYS route the call (as FORGET_BEFORE_LOSS_LUA). ARGV: base, through, now, offset, limit. Closes (reason
 * `lost`) the open sessions created through `through` among `limit` members of `open` from `offset`, so
 * that sweeps remove them and they stop counting against the store's bound (a review: forgotten sessions
 * kept filling it, and logins after a loss were refused SESSION_CAPACITY_REACHED). Returns {closed,
 * examined}.
 */
export const CLOSE_LOST_BATCH_LUA = `${SWEEP_FN}
local base, through, now, offset, limit = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local ids = redis.call('ZRANGE', base .. 'open', offset, offset + limit - 1)
local closed = 0
for _, id in ipairs(ids) do
  local ord = redis.call('HGET', base .. 's:' .. id, 'ord')
  if ord == false or tonumber(ord) <= through then
    closed = closed + closeSession(base, id, now, 'lost')
  end
end
return {closed, #ids}
`;

export const FORGET_BEFORE_LOSS_LUA = `
local run = string.match(redis.call('INFO', 'server'), 'run_id:(%x+)') or ''
local key = ARGV[1] .. 'lost-through'
local known = redis.call('HMGET', key, 'through', 'run')
local through = tonumber(known[1] or '-1')
if known[2] == run and through >= 0 then return through end
local seq = tonumber(redis.call('GET', ARGV[1] .. 'seq') or '0')
if seq > through then through = seq end
redis.call('HSET', key, 'through', through, 'run', run)
redis.call('INCR', ARGV[1] .. 'epoch')
return through
`;

/** KEYS route the call (RedisSessionStore). ARGV: base, sessionId, now, reason. Closes an open session not yet past its end on Redis's clock. */
export const CLOSE_LUA = `${SWEEP_FN}
-- A session past its end on Redis's clock is one get reports closed (expired): closing it would
-- rewrite its end as this close (a probe: an administrator's revocation of an expired session).
local serverExpires = redis.call('HGET', ARGV[1] .. 's:' .. ARGV[2], 'serverExpiresAtMs')
if serverExpires and tonumber(serverExpires) <= serverNow then return 0 end
return closeSession(ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4])
`;

/** KEYS route the call (RedisSessionStore). ARGV: base, sessionId, now. Counts a renewal of an open session unexpired by both `now` and Redis's clock. */
export const RENEW_LUA = `${SERVER_CLOCK_LUA}
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

/** KEYS route the call (RedisSessionStore). ARGV: base, now, limit. */
export const SWEEP_LUA = `${SWEEP_FN}
return sweep(ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]))
`;

/**
 * KEYS route the call (RedisSessionStore). ARGV: base, offset, limit. Returns total, then the page's hashes (flat field lists), newest first.
 * An index entry whose hash is gone is skipped and forgotten (the page is filled from the next ones).
 */
export const LIST_LUA = `${SWEEP_FN}
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
 * KEYS route the call (RedisSessionStore). ARGV: base, now, offset, limit. Counts open sessions unexpired at `now` among `limit` index entries
 * from `offset`, forgetting entries whose hash is gone. Returns {counted, examined}.
 */
export const COUNT_OPEN_LUA = `${SWEEP_FN}
local base = ARGV[1]
local ids = redis.call('ZRANGEBYSCORE', base .. 'open', '(' .. ARGV[2], '+inf', 'LIMIT', tonumber(ARGV[3]), tonumber(ARGV[4]))
local counted = 0
for _, id in ipairs(ids) do
  if redis.call('HEXISTS', base .. 's:' .. id, 'sessionId') == 1 then counted = counted + 1 else forget(base, id) end
end
return {counted, #ids}
`;
