/**
 * The fleet's clock reports (`<prefix>{replay}:clocks`): each instance's clock check publishes whether its
 * clock agrees with Redis's and by how much it is off, and reads how many other instances agree with
 * Redis's clock and how many with its own instead. Readiness takes an instance out only while the first
 * outnumber the second: a lone instance, or a fleet whose clocks all differ from Redis's alike, cannot
 * tell its clock from Redis's (docs/storage.md, "An instance's clock in health and readiness").
 */
import { randomUUID } from 'node:crypto';
import { type RedisConnection, defineScript, SERVER_CLOCK_LUA } from './redis-client.js';

/**
 * How far this instance's clock may be off Redis's and still count as agreeing with it in the fleet's clock
 * reports (ms), which readiness compares: 30 s, the future a login challenge may be stamped in
 * (LOGIN_CHALLENGE_MAX_FUTURE_MS), and a tenth of the default 300 s windows. Health names far less
 * (CLOCK_LAG_NAMED_MS, CLOCK_LEAD_NAMED_MS).
 */
export const REDIS_CLOCK_AGREEMENT_MS = 30_000;

/**
 * A lag behind Redis's clock that health names (ms): 1 s. A line made on a true clock is future here for
 * as long as this clock lags (HOLA_FUTURE_SKEW_MS is 0 by default), so a peer sending its line at once is
 * refused `timestamp_stale_or_future`; beyond 5 s its peers' tokens are not valid yet here either. A
 * fleet chaos probe: an instance 25 s behind refused every fresh line and half its peers' tokens while
 * reporting `healthy`. Clocks kept by NTP differ by milliseconds, and the check never counts the round trip
 * (RedisReplayStore.checkClock), so only a clock that is off is named.
 */
export const CLOCK_LAG_NAMED_MS = 1_000;

/**
 * A lead over Redis's clock that health names (ms): 5 s, the tolerance for a token's `nbf`. Beyond it the
 * tokens this instance issues are not valid yet on instances on Redis's clock (401 `not_yet_valid`); below
 * it, lines made on true clocks only lose the lead from their window here.
 */
export const CLOCK_LEAD_NAMED_MS = 5_000;

/** How long an instance's clock report counts for the fleet (three clock checks). */
export const CLOCK_REPORT_LIFE_MS = 15_000;

/**
 * Publishes this instance's report (ARGV[1] its id, ARGV[2] 1 when its clock agrees with Redis's, else 0,
 * ARGV[4] its offset from Redis's clock in ms: positive ahead, negative behind) as
 * `<agrees>:<Redis's ms>:<offset>`, drops reports older than ARGV[3] ms, or stamped more than that ahead
 * (Redis's clock set back since: such a report never aged, and a gone instance counted for as long as the
 * step; a review), and answers {how many other
 * instances agree with Redis's clock, how many others disagree with it but agree with this one's
 * (offsets within ARGV[5] ms), the largest and the smallest offset among the live reports within the clock
 * skew margin ARGV[6] (this one's included; an instance beyond it records nothing, so it accepts no line
 * a loss could let through again; 0: no bound)}. The largest and smallest say how far apart the fleet's
 * clocks are: after a loss of Redis's records the hold waits that out too (RedisHistoryWatch).
 */
const CLOCK_REPORT_LUA = `${SERVER_CLOCK_LUA}
local offset, tolerance, life, margin = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[3]), tonumber(ARGV[6]) or 0
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ':' .. serverNow .. ':' .. ARGV[4])
local all = redis.call('HGETALL', KEYS[1])
local agreeing, withThis, highest, lowest = 0, 0, 0, 0
for i = 1, #all, 2 do
  local agrees, at, theirs = string.match(all[i + 1], '^([01]):(%d+):(-?%d+)$')
  if not at or math.abs(serverNow - tonumber(at)) > life then redis.call('HDEL', KEYS[1], all[i])
  else
    local off = tonumber(theirs)
    if margin <= 0 or math.abs(off) <= margin then
      if off > highest then highest = off end
      if off < lowest then lowest = off end
    end
    if all[i] ~= ARGV[1] then
      if agrees == '1' then agreeing = agreeing + 1
      elseif ARGV[2] == '0' and math.abs(off - offset) <= tolerance then withThis = withThis + 1 end
    end
  end
end
redis.call('PEXPIRE', KEYS[1], life * 2)
return {agreeing, withThis, highest, lowest}
`;

/** What the other instances reported (within CLOCK_REPORT_LIFE_MS). */
export interface FleetClockCounts {
  /** Instances whose clocks agree with Redis's. */
  readonly agreeingWithRedis: number;
  /** Instances off Redis's clock but within REDIS_CLOCK_AGREEMENT_MS of this one's offset. */
  readonly agreeingWithThis: number;
  /**
   * The fleet's largest lead over Redis's clock (ms, 0 when none is ahead) and largest lag behind it (ms,
   * 0 when none is behind), among the live reports within the clock skew margin, this one's included.
   */
  readonly leadMs: number;
  readonly lagMs: number;
}

export class RedisClockReport {
  private readonly instanceId = randomUUID();
  private readonly script: (...args: Array<string | number>) => Promise<unknown>;

  constructor(
    private readonly redis: RedisConnection,
    private readonly key: string,
  ) {
    this.script = defineScript(redis, 'passportClockReport', 1, CLOCK_REPORT_LUA);
  }

  /**
   * Removes this instance's report (on close): a process stopped and started again alone counted its
   * former self, whose last report was still under 15 s old, as a peer agreeing with Redis's clock, and
   * went out of rotation for about 10 s (an upgrade probe).
   */
  async withdraw(): Promise<void> {
    await this.redis.hdel(this.key, this.instanceId);
  }

  /**
   * Publishes this instance's report (`offsetMs`: positive ahead of Redis's clock) and reads the others'
   * (`marginMs`: the clock skew margin, beyond which an instance records nothing).
   */
  async publish(agrees: boolean, offsetMs: number, marginMs = 0): Promise<FleetClockCounts> {
    const [agreeing, withThis, highest, lowest] = (await this.script(
      this.key,
      this.instanceId,
      agrees ? 1 : 0,
      CLOCK_REPORT_LIFE_MS,
      Math.round(offsetMs),
      REDIS_CLOCK_AGREEMENT_MS,
      Math.max(0, Math.round(marginMs)),
    )) as [number, number, number?, number?];
    return {
      agreeingWithRedis: Number(agreeing),
      agreeingWithThis: Number(withThis),
      leadMs: Math.max(0, Number(highest ?? 0) || 0),
      lagMs: Math.max(0, -Number(lowest ?? 0) || 0),
    };
  }
}

/**
 * Health's text for a lead over Redis's clock beyond CLOCK_LEAD_NAMED_MS, or a lag within the margin
 * beyond CLOCK_LAG_NAMED_MS; undefined within them.
 */
export function clockSkewText(leadMs: number, lagMs: number): string | undefined {
  if (leadMs > CLOCK_LEAD_NAMED_MS)
    return `this instance's clock is ${seconds(leadMs)} s ahead of Redis's, more than ${CLOCK_LEAD_NAMED_MS / 1000} s: the tokens it issues are not valid yet for that long on instances on Redis's clock, and HOLA lines and login challenges made on true clocks look that much older here; set it right`;
  if (lagMs > CLOCK_LAG_NAMED_MS)
    return `this instance's clock is ${seconds(lagMs)} s behind Redis's, more than ${CLOCK_LAG_NAMED_MS / 1000} s: HOLA lines and login challenges made on true clocks look future here for that long${lagMs > CLOCK_LEAD_NAMED_MS ? ', tokens its peers issue are not valid yet here, and its own look that much older elsewhere' : ''}; set it right`;
  return undefined;
}

/** Whole seconds, or tenths below 10 s (a lag of 1.4 s is not "1 s, more than 1 s"). */
function seconds(ms: number): string {
  return ms < 10_000 ? (Math.floor(ms / 100) / 10).toFixed(1) : String(Math.round(ms / 1000));
}
