/**
 * ReplayStore on Redis. One Lua script (EVALSHA; one invocation per event-loop turn, see
 * defineBatchedScript) makes `recordIfAbsent` atomic across every instance
 * sharing the server: of N concurrent calls with one key exactly one is `recorded`.
 *
 * Keys (all under one hash tag, so the script's keys share a Redis Cluster slot):
 * - `<prefix>{replay}:r:<key>`  string `firstSeenMs:expiresAtMs`. Whether a record is live is decided
 *   with the caller's `nowMs` (the same clock its freshness check used), so a record is live until
 *   `expiresAtMs` exclusive, exactly as in the other stores;
 * - `<prefix>{replay}:exp`      sorted set key → expiresAtMs: the count, the cap and the sweep;
 * - `<prefix>{replay}:o:<owner>` sorted set key → expiresAtMs: the per-owner quota.
 * A live record is never evicted: a full store (`maxEntries`, after dropping expired entries) refuses
 * with REPLAY_STORE_FULL and an owner at its quota with REPLAY_QUOTA_EXCEEDED. Any Redis error is
 * thrown as it is, so the caller fails closed (REPLAY_STORE_UNAVAILABLE); so is a Redis whose
 * `maxmemory-policy` may evict (`evictionProblem`).
 */
import { PassportError, type ReplayStore } from '@passport/core';
import {
  positiveCap,
  RecordingPausedError,
  storeCap,
  type RecordOutcome,
  type RecordQuota,
  type ReplayStoreUsage,
} from '@passport/core/ports';
import {
  type RedisConnection,
  defineScript,
  luaNumber,
  luaString,
  refuseWhenFullLua,
  SERVER_CLOCK_LUA,
} from './redis-client.js';
import { EVICTION_POLICY_NOT_READ } from './eviction-policy.watch.js';
import {
  CLOCK_REPORT_LIFE_MS,
  clockSkewText,
  REDIS_CLOCK_AGREEMENT_MS,
  RedisClockReport,
} from './redis-clock-report.js';
import { OWN_GENERATION_TTL_MS } from './redis-history.watch.js';
import {
  type BatchedScriptCall,
  type BatchedScriptDefinition,
  defineBatchedScript,
} from './redis-batched-script.js';

export const DEFAULT_REDIS_REPLAY_MAX_ENTRIES = 1_000_000;
/**
 * How far behind Redis an instance's clock may run and still find every record it needs (15 min):
 * records are kept that long past their expiry. With the 24 h replay window that costs about 1 % more
 * held records.
 */
export const DEFAULT_REDIS_CLOCK_SKEW_MARGIN_MS = 900_000;

/**
 * An owner's set outlives its newest record by up to this much more (60 s), so its expiry is pushed
 * out once a minute rather than on every record (each push is a command in the script).
 */
const OWNER_TTL_HEADROOM_MS = 60_000;
/** The Retry-After of a record refused before the eviction policy is read (it is read once connected). */
const NOT_READ_RETRY_MS = 1000;

/**
 * The record call of one store, batched (defineBatchedScript: the records of one event-loop turn in one
 * invocation). A call replies 1 when recorded (a number: the cheapest reply), else {0, firstSeen} live,
 * {-1} store full, {-2} owner at quota, {-3} marker missing or changed, {-4, heldMs} another instance's
 * hold, {-5} older data (the shared counter, or this instance's own key, behind what it was answered),
 * {-6, lagMs} the caller's clock behind Redis's by more than the margin (its freshness check could accept
 * lines whose records Redis has removed: a clock-step probe had a used login body give a second JWT on
 * an instance set back 25 min), or ahead of it by more than the margin (lagMs negative: what such an
 * instance accepts, a loss's hold would have to wait out; see RedisHistoryWatch);
 * the invocation answers the generation once: the counter after its increment when it recorded
 * something, else the counter as read, negated (neither the counter nor its own key written then), and
 * with another instance's hold {that, heldMs, the hold key's value}. The cheap checks come first: the index is looked up for the member only when the
 * store is at the call's cap. The keys it writes are declared (the index once; per call the record and
 * the owner's set; all under one hash tag, so one Redis Cluster slot), so that Cluster refuses a call
 * while that slot migrates before anything is written. The store's fixed values (the record key prefix,
 * the margin) are built into the script rather than sent with every call; once per invocation (with the
 * history guard) the marker, the generation and the own generation this instance knows; per call: now, expiresAt, the owner's quota (0: none), and the cap (records held
 * at which this call is refused: the store's cap times the call's share). The caller's numbers are stored
 * and used as scores as the strings they came as.
 *
 * What one invocation reads once rather than per call (each command or number conversion in Lua costs
 * Redis a few thousand instructions; scripts/redis-script-instructions.sh counts them): the index's size
 * (then kept by the calls' own ZADD replies, and read again after making room), the quota's and the cap's
 * numbers while the calls send the same text, and each owner set's time to live (a ZREMRANGEBYSCORE may
 * empty and so delete the set: its entry is dropped then).
 */
function recordDefinition(
  base: string,
  marginMs: number,
  history:
    Pick<ReplayHistoryGuard, 'markerKey' | 'generationKey' | 'holdKey' | 'ownGenerationKey'> | undefined,
): BatchedScriptDefinition {
  const recordPrefix = `${base}r:`;
  return {
    prelude: `${SERVER_CLOCK_LUA}
local idx, margin = KEYS[1], ${luaNumber(marginMs)}
${refuseWhenFullLua(luaString(`${base}oom-probe`))}
${
  history === undefined
    ? `local stop, recordedAny = nil, false
local function generation() return 0 end`
    : `local marker, heldMs, mine = redis.call('GET', KEYS[2]), redis.call('PTTL', KEYS[4]), redis.call('GET', KEYS[5])
local current = tonumber(redis.call('GET', KEYS[3])) or 0
local stop, recordedAny = nil, false
if marker == false or (markerArg ~= '' and marker ~= markerArg) then stop = {-3}
elseif heldMs > 0 then stop = {-4, heldMs, redis.call('GET', KEYS[4]) or ''}
elseif genArg ~= '' and current < tonumber(genArg) then stop = {-5}
elseif ownArg ~= '' and (mine == false or tonumber(mine) < tonumber(ownArg)) then stop = {-5} end
-- After the calls: only an invocation that recorded moves the counter and this instance's key (one
-- that recorded nothing loses nothing if Redis forgets it: a probe had replays alone between a snapshot
-- and a restart from it read as a loss).
local function generation()
  if not recordedAny then
    -- Another instance's hold: its time to live beside the counter, so that the watch counts it from
    -- before the invocation was sent (onInvocationReply's round trip), not from a late reply.
    if stop and stop[1] == -4 then return {-current, stop[2], stop[3]} end
    return -current
  end
  local gen = redis.call('INCR', KEYS[3])
  redis.call('SET', KEYS[5], gen, 'PX', ${luaNumber(OWN_GENERATION_TTL_MS)})
  return gen
end`
}
local held = redis.call('ZCARD', idx)
local quotaText, maxPerOwner, capText, cap = nil, 0, nil, 0
local ownerTtl = {}`,
    sharedKeys:
      history === undefined
        ? [`${base}exp`]
        : [`${base}exp`, history.markerKey, history.generationKey, history.holdKey, history.ownGenerationKey],
    sharedArgs: history === undefined ? [] : ['markerArg', 'genArg', 'ownArg'],
    callKeys: ['rec', 'ownerKey'],
    callArgs: ['nowArg', 'expiresArg', 'quotaArg', 'capArg'],
    callBody: `
if stop then return stop end
if quotaArg ~= quotaText then quotaText, maxPerOwner = quotaArg, tonumber(quotaArg) or 0 end
if capArg ~= capText then capText, cap = capArg, tonumber(capArg) end
local now = tonumber(nowArg)
if margin > 0 and (now < serverNow - margin or now > serverNow + margin) then return {-6, serverNow - now} end
local keepFor = math.max(1, tonumber(expiresArg) - earlier(now) + margin)
local seen = redis.call('GET', rec)
if seen then
  local sep = string.find(seen, ':', 1, true)
  local firstSeen, seenExpires = string.sub(seen, 1, sep - 1), tonumber(string.sub(seen, sep + 1))
  if seenExpires > now then return {0, firstSeen} end
end
local member = string.sub(rec, ${Buffer.byteLength(recordPrefix) + 1})
if maxPerOwner > 0 then
  if redis.call('ZCARD', ownerKey) >= maxPerOwner then
    redis.call('ZREMRANGEBYSCORE', ownerKey, '-inf', now)
    ownerTtl[ownerKey] = nil
    if redis.call('ZCARD', ownerKey) >= maxPerOwner then return {-2} end
  end
end
if held >= cap and redis.call('ZSCORE', idx, member) == false then
  local expired = redis.call('ZRANGEBYSCORE', idx, '-inf', earlier(now) - margin, 'LIMIT', 0, 1000)
  for _, k in ipairs(expired) do redis.call('DEL', ${luaString(recordPrefix)} .. k) end
  if #expired > 0 then redis.call('ZREM', idx, unpack(expired)) end
  held = redis.call('ZCARD', idx)
  if held >= cap then return {-1} end
end
recordedAny = true
redis.call('SET', rec, nowArg .. ':' .. expiresArg, 'PX', keepFor)
held = held + redis.call('ZADD', idx, expiresArg, member)
if maxPerOwner > 0 then
  redis.call('ZADD', ownerKey, expiresArg, member)
  local ttl = ownerTtl[ownerKey] or redis.call('PTTL', ownerKey)
  if ttl < keepFor then
    ttl = keepFor + ${OWNER_TTL_HEADROOM_MS}
    redis.call('PEXPIRE', ownerKey, ttl)
  end
  ownerTtl[ownerKey] = ttl
end
return 1`,
    invocationReply: 'generation()',
  };
}

/**
 * Deletes up to ARGV[2] expired records (batches: Lua's unpack is limited to ~8000 values); returns how
 * many. ARGV: now, batch, record key prefix, clock skew margin.
 */
const SWEEP_LUA = `${SERVER_CLOCK_LUA}
local upTo = earlier(tonumber(ARGV[1])) - tonumber(ARGV[4])
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', upTo, 'LIMIT', 0, tonumber(ARGV[2]))
for _, k in ipairs(expired) do
  local seen = redis.call('GET', ARGV[3] .. k)
  if seen and tonumber(string.sub(seen, string.find(seen, ':', 1, true) + 1)) <= upTo then redis.call('DEL', ARGV[3] .. k) end
end
if #expired > 0 then redis.call('ZREM', KEYS[1], unpack(expired)) end
return #expired
`;

const RECORDED: RecordOutcome = Object.freeze({ recorded: true });

export interface RedisReplayStoreOptions {
  /** Key prefix shared by every adapter of one deployment (default `passport:`). */
  readonly prefix?: string | undefined;
  /** Live records held at most (default 1 000 000). */
  readonly maxEntries?: number | undefined;
  /**
   * How far an instance's clock may run behind Redis's and still find every record it needs: records
   * are removed only this long after they expired (default 15 min; 0 removes them at expiry, as the
   * in-process stores do).
   */
  readonly clockSkewMarginMs?: number | undefined;
  /**
   * Why Redis may evict live records right now (an evicting `maxmemory-policy`; `RedisEvictionWatch`),
   * or undefined. While there is a reason, nothing is recorded: the store fails closed (with an error; and
   * with a `RecordingPausedError` for the watch's `EVICTION_POLICY_NOT_READ`, before its first read).
   */
  readonly evictionProblem?: () => string | undefined;
  /**
   * The data-loss watch (RedisHistoryWatch): while it has a `problem` nothing is recorded, and every
   * record script checks its marker first (a missing marker: nothing recorded, the watch told).
   */
  readonly history?: ReplayHistoryGuard | undefined;
  /** Under load, record invocations at most this often (ms; default 0): DEFAULT_REDIS_INVOCATION_INTERVAL_MS. */
  readonly invocationIntervalMs?: number | undefined;
}

/** What the replay store needs of a RedisHistoryWatch. */
export interface ReplayHistoryGuard {
  readonly markerKey: string;
  readonly generationKey: string;
  readonly holdKey: string;
  /** This instance's own generation key (the counter's value at its last record invocation). */
  readonly ownGenerationKey: string;
  /** The marker's value as this instance last read it, or null before the first read. */
  readonly knownMarker: string | null;
  /** The highest generation a record invocation answered this instance, or null. */
  readonly knownGeneration: number | null;
  observeGeneration(generation: number): void;
  /** The value this instance's last record invocation wrote to its own key, or null (compare none). */
  readonly knownOwnGeneration: number | null;
  observeOwnGeneration(generation: number): void;
  generationWentBack(): void;
  /**
   * Another instance's hold lasts `remainingMs` more from now (its PTTL less the time since it was read);
   * `holdValue`: the hold key's value (it names the noticer's clock-spread extension), when read.
   */
  adoptHold(remainingMs: number, holdValue?: string): void;
  readonly problem: string | undefined;
  /** Milliseconds until the hold ends (0 when none runs). */
  readonly holdRemainingMs: number;
  markerMissing(): Promise<void>;
  /** When the last loss this instance knows happened or was noticed (Unix ms), or null. */
  readonly lostAtMs?: number | null;
  /**
   * How much later than `lostAtMs` (on this instance's clock) the fleet's furthest-ahead clock read the
   * loss (ms, at least 0): lines stamped up to then (plus the future skew) may have been accepted before it.
   */
  readonly lossLeadOverThisClockMs?: number;
  /**
   * The clock check's reading (every 5 s): this instance's offset from Redis's clock (ms, positive ahead)
   * and the fleet's largest lead and lag within the margin (ms, at least 0; this instance's included).
   */
  observeFleetClocks?(ownOffsetMs: number, leadMs: number, lagMs: number, marginMs?: number): void;
}

export class RedisReplayStore implements ReplayStore {
  readonly maxEntries: number;
  readonly clockSkewMarginMs: number;
  private readonly base: string;
  private readonly indexKey: string;
  private readonly ownerPrefix: string;
  private readonly record: BatchedScriptCall;
  private readonly sweepScript: (...args: Array<string | number>) => Promise<unknown>;
  private refusedFullCount = 0;
  private refusedQuotaCount = 0;
  private lastFullAtMs: number | null = null;
  private lastFailure: number | null = null;
  private lastFailureText: string | null = null;
  private clockLag: string | undefined;
  /** A lead beyond 5 s, or a lag within the margin beyond 1 s (clockSkewText; set and cleared by checkClock). */
  private clockSkew: string | undefined;
  /** Other instances whose clocks agreed with Redis's at the last clock check. */
  private agreeingPeers = 0;
  /** Other instances whose clocks, off Redis's, agreed with this one's at the last clock check. */
  private peersAgreeingHere = 0;
  private readonly clockReport: RedisClockReport;
  private readonly evictionProblem: () => string | undefined;
  private readonly history: ReplayHistoryGuard | undefined;

  constructor(
    private readonly redis: RedisConnection,
    options: RedisReplayStoreOptions = {},
  ) {
    this.maxEntries = positiveCap(options.maxEntries ?? DEFAULT_REDIS_REPLAY_MAX_ENTRIES, 'maxEntries');
    this.clockSkewMarginMs = options.clockSkewMarginMs ?? DEFAULT_REDIS_CLOCK_SKEW_MARGIN_MS;
    this.base = `${options.prefix ?? 'passport:'}{replay}:`;
    this.evictionProblem = options.evictionProblem ?? (() => undefined);
    this.history = options.history;
    this.indexKey = `${this.base}exp`;
    this.ownerPrefix = `${this.base}o:`;
    const history = options.history;
    this.record = defineBatchedScript(
      redis,
      'passportReplayRecord',
      recordDefinition(this.base, this.clockSkewMarginMs, history),
      history === undefined
        ? { invocationIntervalMs: options.invocationIntervalMs }
        : {
            invocationIntervalMs: options.invocationIntervalMs,
            // The marker value this instance knows ('' when none yet): another value means another
            // instance found the data lost and made a new marker, which this one has not seen yet. The
            // generation likewise ('' before this instance's first record): one not above it means Redis
            // came back with older data. Read when the invocation is sent: the latest this instance knows.
            // A loss noticed between the calls and the send (the check's reply read in the same turn)
            // has made those values the new marker and no generation, which the lost data would pass:
            // its hold refuses the calls here, as it refuses every call made from now on (a probe had a
            // used line recorded again within the hold, 15 of 15 runs).
            sharedArgValues: () => {
              const held = history.problem;
              if (held !== undefined) throw new RecordingPausedError(held, history.holdRemainingMs);
              return [
                history.knownMarker ?? '',
                history.knownGeneration ?? '',
                history.knownOwnGeneration ?? '',
              ];
            },
            // Every call of an invocation shares its generation; a call that found older data (-5) tells
            // the watch itself, after this.
            // Negative (the counter as read) when the invocation recorded nothing: the counter and this
            // instance's own key were not written then.
            // With another instance's hold ({generation, heldMs}): adopted here, counted from before the
            // invocation was sent, as the watch's own read counts it. Counted from the reply, a reply handled
            // 400 ms late held this instance 400 ms past the hold key, whose expiry its held read then took
            // for a second flush: it set the hold again, and every instance whose hold had ended reported a
            // second loss and refused again; its loss time was 400 ms late too (a review).
            onInvocationReply: (reply, roundTripMs) => {
              const [generation, heldMs] = Array.isArray(reply) ? reply.map(Number) : [Number(reply)];
              history.observeGeneration(Math.abs(generation));
              if (generation > 0) history.observeOwnGeneration(generation);
              const holdValue = Array.isArray(reply) && typeof reply[2] === 'string' ? reply[2] : undefined;
              if (heldMs !== undefined) history.adoptHold(heldMs - Math.max(0, roundTripMs), holdValue);
            },
          },
    );
    this.sweepScript = defineScript(redis, 'passportReplaySweep', 1, SWEEP_LUA);
    this.clockReport = new RedisClockReport(redis, `${this.base}clocks`);
  }

  async recordIfAbsent(
    key: string,
    nowMs: number,
    expiresAtMs: number,
    quota?: RecordQuota,
    storeShare?: number,
  ): Promise<RecordOutcome> {
    const evicting = this.evictionProblem();
    // Not known yet on a live connection (before the watch's first read): a pause until it is, as the loss
    // hold is, so the core answers it as the other decided refusals (503 REPLAY_STORE_UNAVAILABLE with
    // Retry-After), and a direct caller gets a typed error, not a bare one (a probe: the README's wiring,
    // at its start). With the connection down it stays a failure of Redis: no Retry-After is promised, and
    // health counts it.
    if (evicting === EVICTION_POLICY_NOT_READ && this.redis.status === 'ready')
      throw new RecordingPausedError(evicting, NOT_READ_RETRY_MS);
    if (evicting !== undefined) {
      // Nothing Redis said (health names the policy, or the lost connection, by itself).
      this.failed(null);
      throw new Error(evicting);
    }
    // The hold after a data loss is a decided refusal that health reports by itself: not a failure of
    // Redis (which would keep health degraded for 10 s after the hold).
    const holding = this.history?.problem;
    if (holding !== undefined) throw new RecordingPausedError(holding, this.history?.holdRemainingMs ?? 0);
    // Records held at which this call is refused (the store's cap times the call's share).
    const cap = storeCap(this.maxEntries, storeShare);
    let reply: unknown;
    try {
      reply = await (quota
        ? this.record(
            this.base + 'r:' + key,
            this.ownerPrefix + quota.owner,
            nowMs,
            expiresAtMs,
            quota.maxPerOwner,
            cap,
          )
        : this.record(this.base + 'r:' + key, this.ownerPrefix, nowMs, expiresAtMs, 0, cap));
    } catch (error) {
      // A hold that began before the invocation left is a decided refusal, not a failure of Redis.
      if (error instanceof RecordingPausedError) throw error;
      this.failed(firstLineOf(error));
      throw error;
    }
    // 1 (recorded) comes as a number, every other outcome as a table (see recordDefinition).
    if (reply === 1) {
      this.clockLag = undefined;
      return RECORDED;
    }
    const [status, firstSeen] = reply as [number, string | number | undefined];
    if (status === -5) {
      this.failed(null);
      this.history?.generationWentBack();
      throw new Error('redis answered with older replay records than before: it lost some of them');
    }
    if (status === 0) {
      this.clockLag = undefined;
      return { recorded: false, firstSeenAtMs: Number(firstSeen) };
    }
    if (status === -6) {
      // Fail closed, as for a failure of Redis (503 REPLAY_STORE_UNAVAILABLE; health names it), until this
      // instance's clock is set right: the records it would need may be gone.
      this.clockLag = this.clockLagText(Number(firstSeen));
      this.failed(this.clockLag);
      throw new Error(this.clockLag);
    }
    if (status === -3) {
      // Found out here, so that this very answer carries the hold's end (else the first 503 after a
      // loss has no Retry-After); a changed marker that turns out to be no loss is a failure of the moment.
      await this.history?.markerMissing().catch(() => undefined);
      const held = this.history?.problem;
      if (held !== undefined) throw new RecordingPausedError(held, this.history?.holdRemainingMs ?? 0);
      this.failed(null);
      throw new Error('the replay history marker is missing or changed: redis may have lost its data');
    }
    if (status === -4) {
      // Another instance noticed a loss: its hold holds here too (adopted with the invocation's reply,
      // the round trip taken off: onInvocationReply).
      throw new RecordingPausedError(
        this.history?.problem ?? 'redis lost replay records: recording refused for a while',
        this.history?.holdRemainingMs || Number(firstSeen),
      );
    }
    if (status === -1) {
      // A share's own limit (subagent lines at half) is not the store being full (health, metrics).
      if (cap >= this.maxEntries) {
        this.refusedFullCount++;
        this.lastFullAtMs = nowMs;
      }
      throw new PassportError('REPLAY_STORE_FULL');
    }
    this.refusedQuotaCount++;
    throw new PassportError('REPLAY_QUOTA_EXCEEDED', { maxPerSender: quota?.maxPerOwner });
  }

  /** Deletes records expired more than the clock skew margin ago (in batches); returns how many were removed. */
  async sweep(nowMs: number): Promise<number> {
    let removed = 0;
    for (;;) {
      const batch = Number(
        await this.sweepScript(this.indexKey, nowMs, 1000, `${this.base}r:`, this.clockSkewMarginMs),
      );
      removed += batch;
      if (batch < 1000) return removed;
    }
  }

  /**
   * Why nothing is recorded while this instance's clock lags Redis's by more than the margin (set by a
   * refused record and by `checkClock`, cleared by a record made or by `checkClock`), else how far it runs
   * ahead of Redis's beyond CLOCK_LEAD_NAMED_MS, or behind within the margin beyond CLOCK_LAG_NAMED_MS (`checkClock`), or
   * undefined. Health reports it as long as it lasts (a review: it had named the lag for 10 s after each
   * refusal only; a probe: a lead of 10 min was named nowhere).
   */
  get clockProblem(): string | undefined {
    return this.clockLag ?? this.clockSkew;
  }

  /**
   * This instance's lag or lead beyond the margin (it records nothing) while more instances of the fleet (reports
   * within the last 15 s) agree with Redis's clock than with this one's: then the fault is this instance's
   * clock, not Redis's, and the others can serve. Else undefined (a lead, or a lag within the margin; alone,
   * every instance off, or a tie: Redis's own clock may be the wrong one).
   */
  get clockProblemOfThisInstance(): string | undefined {
    // Only a lag or a lead beyond the margin: such an instance records nothing, so every verify and login
    // fails on it whoever's clock is right. One within the margin either way still records and serves lines
    // made on its own clock, and which clock is true the fleet cannot tell (the instances sharing a wrong
    // clock can be the many): it is named in health only.
    const problem = this.clockLag;
    // Redis's clock counts with the instances that agree with it, this clock with those that agree with
    // it: Redis's clock wrong and one instance on its host (sharing it) took out every instance on a true
    // clock, which recorded and served, and sent all traffic to the one answering true lines stale (a
    // review). A tie keeps this instance ready.
    if (problem === undefined || this.agreeingPeers <= this.peersAgreeingHere) return undefined;
    return `${problem}; another instance agrees with Redis's clock (${this.agreeingPeers} in the last ${CLOCK_REPORT_LIFE_MS / 1000} s), so this one's clock is wrong`;
  }

  /**
   * Compares this instance's clock (`nowMs`) with Redis's `TIME`, sets or clears `clockProblem`, and
   * reports to the fleet whether this clock agrees with Redis's. The round trip is never counted as skew:
   * the lag is taken from the reading after the reply, the lead from the reading before the send (the
   * least either can be), so a slow Redis reports neither.
   */
  async checkClock(nowMs: () => number): Promise<void> {
    if (this.clockSkewMarginMs <= 0) return;
    try {
      const before = nowMs();
      const [seconds, micros] = await this.redis.time();
      const after = nowMs();
      const redisMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
      const lagMs = redisMs - after;
      const leadMs = before - redisMs;
      // Beyond the margin either way nothing is recorded (the record script refuses it too): a lag, since
      // the records its freshness check needs may be gone; a lead, since a loss's hold would have to wait
      // out what such an instance accepted (the fleet's spread, RedisHistoryWatch), which bounds the spread
      // by twice the margin.
      this.clockLag =
        lagMs > this.clockSkewMarginMs
          ? this.clockLagText(lagMs)
          : leadMs > this.clockSkewMarginMs
            ? this.clockLagText(-leadMs)
            : undefined;
      this.clockSkew = this.clockLag === undefined ? clockSkewText(leadMs, lagMs) : undefined;
      const offsetMs = leadMs > 0 ? leadMs : lagMs > 0 ? -lagMs : 0;
      // Agreeing, for the fleet's readiness counts, is within 30 s: health names less (clockSkewText), but
      // an instance a few seconds off still agrees with Redis's clock rather than with one an hour away.
      const agrees = this.clockLag === undefined && Math.abs(offsetMs) <= REDIS_CLOCK_AGREEMENT_MS;
      const counts = await this.clockReport.publish(agrees, offsetMs, this.clockSkewMarginMs);
      this.agreeingPeers = counts.agreeingWithRedis;
      this.peersAgreeingHere = counts.agreeingWithThis;
      const bound = (ms: number) => Math.min(this.clockSkewMarginMs, ms);
      this.history?.observeFleetClocks?.(
        offsetMs,
        bound(counts.leadMs),
        bound(counts.lagMs),
        this.clockSkewMarginMs,
      );
    } catch (error) {
      // No count outlives a check that failed (Redis down, the report refused): readiness then does not
      // take this instance out on what the fleet said before (a review).
      this.agreeingPeers = 0;
      this.peersAgreeingHere = 0;
      throw error;
    }
  }

  /** Removes this instance's clock report from the fleet's (the instance is closing). */
  withdrawClockReport(): Promise<void> {
    return this.clockReport.withdraw();
  }

  /** `lagMs` negative: a lead. */
  private clockLagText(lagMs: number): string {
    const way = lagMs < 0 ? 'ahead of' : 'behind';
    return `this instance's clock is ${Math.round(Math.abs(lagMs) / 1000)} s ${way} Redis's, more than the clock skew margin (${Math.round(this.clockSkewMarginMs / 1000)} s): nothing is recorded until it is set right`;
  }

  /**
   * The latest time on this instance's clock, less the future skew, at which a line may have been stamped
   * and accepted before the last loss of Redis's replay records this instance knows, or null. That is the
   * loss as the fleet's furthest-ahead clock read it (see RedisHistoryWatch.lossLeadOverThisClockMs).
   */
  lostRecordsAtMs(): number | null {
    const lostAt = this.history?.lostAtMs ?? null;
    return lostAt === null ? null : lostAt + (this.history?.lossLeadOverThisClockMs ?? 0);
  }

  /** Records held (expired ones not yet swept included). */
  get size(): Promise<number> {
    return this.redis.zcard(this.indexKey);
  }

  /** Wall-clock time of the last request this store failed to serve (not a refusal), or null. */
  get lastFailureAtMs(): number | null {
    return this.lastFailure;
  }

  /**
   * What Redis said at the last failure (its first line, for health: an out-of-memory refusal, say), or
   * null when that failure was not something Redis said (an evicting policy, a lost connection).
   */
  get lastFailureMessage(): string | null {
    return this.lastFailureText;
  }

  /**
   * A request this store failed to serve, with what Redis said about it or null: the time and the text
   * are set together, so health never shows an earlier failure's text (a probe: an out-of-memory
   * refusal's, minutes old, beside a failure under an evicting policy and after a Redis restart).
   */
  private failed(text: string | null): void {
    this.lastFailure = Date.now();
    this.lastFailureText = text;
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

function firstLineOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0].slice(0, 160);
}
