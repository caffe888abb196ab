/**
 * Two ways a loss learned from `lost-at` (learnLossTime) still lands the nonce_replay boundary off
 * L + lead + skew by a step of this instance's wall clock, after the fix of 8fd1de8 (a review):
 *
 * 1. A loss time learned from `lost-at` that is later than Redis's clock (Redis's clock set back since, a
 * failover to a replica behind), on an instance whose wall clock was stepped ahead since its start.
 * `learnLossTime` clamps the loss to `repliedAt` ("never after now"), a time taken WITH the step, and
 * since the step fix takes the instance's offset WITHOUT the step (`offsetAsTakenNow(true)`): the step is
 * counted twice the other way, and the nonce_replay boundary lands a step after now + lead + skew, so
 * fresh lines signed in the next seconds are refused nonce_replay (a review).
 * 2. A loss learned before this instance's first clock check (its first read on 'ready' runs before
 * the check at a server's start): `lossOwnOffsetMs` stays null and `lossLeadOverThisClockMs` falls back
 * to the LATEST check's offset, which carries every later step; an NTP step of +3 s lowers the boundary
 * by 3 s and a line used just before the loss verifies again with a 24 h window.
 *
 * Harness as redis-loss-clock-step.spec.ts (real redis-server, the real verify, skew 1 s).
 */
import { redisLossFleet } from './support/redis-loss-fleet.js';
import {
  DAY,
  sleep,
  line,
  started,
  lossInstance,
  steppedSystemClock,
  redisNowMs,
} from './support/redis-loss-clocks.js';

const LONG = 60_000;
const fleet = redisLossFleet();

/** The system wall clock's step from the real time (ms). */
const systemClock = steppedSystemClock();

/** `nowMs` undefined: the system clock (Date.now) and monotonic time (performance.now), as the server. */
function instance(prefix: string, nowMs?: () => number) {
  return lossInstance(fleet, prefix, { nowMs });
}

describe('a lost-at later than Redis clock, learned by an instance stepped ahead since its start', () => {
  afterEach(() => {
    systemClock.offsetMs = 0;
  });

  it(
    'takes the loss as now on the footing of its offset: a fresh line signed 2 s later verifies',
    async () => {
      const prefix = 'future-lost-at:';
      const x = instance(prefix);
      // NTP steps it 3 s ahead (kept): its clock check measures +3 s, the fleet's lead is 3 s.
      systemClock.offsetMs = 3_000;
      await started(x);
      const client = fleet.client();
      // The loss as kept by a primary whose clock ran 10 s ahead of this one's (a failover).
      const learnedAt = await redisNowMs(fleet);
      await client.set(`${prefix}{replay}:lost-at`, String(learnedAt + 10_000), 'PX', 3_600_000);
      await client.set(`${prefix}{replay}:lost-lead`, '3000', 'PX', 3_600_000);
      await x.watch.check();
      expect(x.watch.holdRemainingMs).toBe(0);
      // The loss is now (clamped) on Redis's clock, plus the fleet's lead once: L + lead = learnedAt + 3 s.
      const boundary = (x.watch.lostAtMs ?? NaN) + x.watch.lossLeadOverThisClockMs;
      // Fails: learnedAt + 6 s (repliedAt carries the step, the offset taken does not).
      expect(boundary - learnedAt).toBeLessThan(3_000 + 500);
      // A line a true signer makes 2 s later, stamped 5.5 s after the loss was learned (x, 3 s ahead,
      // accepts it with 1 s of skew): past L + lead + skew, so fresh.
      await sleep(2_000);
      const fresh = line(learnedAt + 5_500);
      expect(await x.verify(fresh)).toMatchObject({ verified: true, failureReasons: [] });
    },
    LONG,
  );
});

describe('a loss learned from lost-at before the first clock check, the wall clock stepped since', () => {
  afterEach(() => {
    systemClock.offsetMs = 0;
  });

  it(
    'started 3 s behind after a loss, set right by NTP later: refuses a line used just before the loss (24 h window)',
    async () => {
      const prefix = 'learned-then-step:';
      // The loss, noticed by an instance since gone: kept on Redis's clock, the fleet true (lead 0).
      const lossAt = (await redisNowMs(fleet)) - 1_000;
      const client = fleet.client();
      await client.set(`${prefix}{replay}:lost-at`, String(lossAt), 'PX', 3_600_000);
      await client.set(`${prefix}{replay}:lost-lead`, '0', 'PX', 3_600_000);
      // A rolling restart: x starts 3 s behind; its first read (on 'ready') learns the loss before its
      // first clock check, as the server's start runs them.
      systemClock.offsetMs = -3_000;
      const x = instance(prefix);
      await x.watch.check();
      await x.checkClock();
      // Right so far: the check measured -3 s, the boundary is L + lead.
      expect((x.watch.lostAtMs ?? NaN) + x.watch.lossLeadOverThisClockMs - lossAt).toBeGreaterThan(-500);
      // NTP sets the clock right (a step of +3 s); the next checks measure 0.
      systemClock.offsetMs = 0;
      await x.checkClock();
      await x.checkClock();
      // Fails: the offset taken at the loss was none (no check yet), so the boundary follows the latest
      // check's offset, which carries the step: L - 3 s.
      expect((x.watch.lostAtMs ?? NaN) + x.watch.lossLeadOverThisClockMs - lossAt).toBeGreaterThan(-500);
      // A line accepted just before the loss (stamped L - 0.5 s; its record lost with the data).
      const used = line(lossAt - 500);
      expect(await x.verify(used, DAY)).toMatchObject({ verified: false, failureReasons: ['nonce_replay'] });
    },
    LONG,
  );
});
