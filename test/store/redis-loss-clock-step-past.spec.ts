/**
 * Two ways the nonce_replay boundary after a Redis loss still lands a clock step off L + lead (docs/storage.md,
 * "Clocks off Redis's during a loss"), found by redis-loss-clock-step.laws.spec.ts and a reading (a review):
 *
 * 1. A past loss (`reportPastLoss`: this instance away longer than a hold, the marker older than a hold).
 * The marker's time (another instance's clock) replaces the loss time just learned from `lost-at` when it
 * is later, compared RAW with `lostAtEffective`, which is on the footing `withoutLead` gives (a step ahead
 * since start taken off); and the offset then taken is this instance's raw one (`takeLossOffset(false)`).
 * An instance stepped 3 s ahead since its start (the fleet's lead, 3 s), beside one 0.5 s ahead that made
 * the marker: the boundary is L + 0.5 s, not L + 3 s, and a line it accepted just before the loss verifies
 * again with a 24 h window.
 * 2. `publishLossTime` counts the loss's age on the wall clock (`now() − lostAt`): a step forward during
 * the hold (NTP setting right a clock that was behind), then a second flush within it (the noticer writes
 * `lost-at` again), writes the loss a step early, and an instance started afterwards (within 25 h) takes
 * the loss that early: a line used just before the loss verifies again there with a 24 h window.
 *
 * Harness as redis-loss-clock-step.spec.ts (real redis-server, the real verify, skew 1 s, a short hold).
 */
import { redisLossFleet } from './support/redis-loss-fleet.js';
import {
  HOLD,
  DAY,
  sleep,
  line,
  started,
  lossTime,
  steppedSystemClock,
  realNow,
  awayInstance,
} from './support/redis-loss-clocks.js';

const LONG = 60_000;
const fleet = redisLossFleet();

/** The system wall clock's step from the real time (ms). */
const systemClock = steppedSystemClock();

/** `nowMs` undefined: the system clock (Date.now) and monotonic time (performance.now), as the server. */
const instance = (prefix: string, nowMs?: () => number) => awayInstance(fleet, prefix, nowMs);

describe('a past loss reported by an instance stepped ahead since its start', () => {
  afterEach(() => {
    systemClock.offsetMs = 0;
  });

  it(
    'the marker made by an instance 0.5 s ahead: refuses a line it accepted just before the loss (24 h window)',
    async () => {
      const prefix = 'past-step:';
      const x = await instance(prefix);
      // NTP steps x 3 s ahead (kept): its checks measure +3 s, the fleet's lead is 3 s.
      systemClock.offsetMs = 3_000;
      const a = await instance(prefix, () => realNow() + 500);
      await started(x, a);
      const used = line(x.nowMs());
      expect(await x.verify(used, DAY)).toMatchObject({ verified: true });
      await fleet.server.flush();
      // a notices (it makes the new marker, on its clock); x is away (cut off) until well past the hold.
      await a.watch.check();
      expect(a.watch.holdRemainingMs).toBeGreaterThan(0);
      const lossAt = await lossTime(fleet, prefix);
      const client = fleet.client();
      while ((await client.pttl(`${prefix}{replay}:loss-hold`)) > 0) await sleep(100);
      await sleep(HOLD + 300);
      await x.watch.check();
      expect(x.watch.holdRemainingMs).toBe(0);
      // Fails: L + 0.5 s (the marker's time, less x's raw offset, plus the lead), not L + 3 s.
      expect(x.store.lostRecordsAtMs()! - lossAt).toBeGreaterThan(3_000 - 100);
      expect(await x.verify(used, DAY)).toMatchObject({ verified: false, failureReasons: ['nonce_replay'] });
    },
    LONG,
  );
});

describe('lost-at written again after a step of the noticer clock during the hold', () => {
  afterEach(() => {
    systemClock.offsetMs = 0;
  });

  it(
    'stepped +3 s during the hold, a second flush: an instance started later verifies a line used before the loss (24 h window)',
    async () => {
      const prefix = 'republish-step:';
      // x runs 3 s behind (within the margin); the fleet's lead is 0.
      systemClock.offsetMs = -3_000;
      const x = await instance(prefix);
      const a = await instance(prefix, realNow);
      await started(x, a);
      const used = line(realNow() - 500);
      expect(await a.verify(used, DAY)).toMatchObject({ verified: true });
      await fleet.server.flush();
      await x.watch.check();
      expect(x.watch.holdRemainingMs).toBeGreaterThan(0);
      const lossAt = await lossTime(fleet, prefix);
      // NTP sets x right during the hold, and Redis is flushed again (a restart) within it.
      systemClock.offsetMs = 0;
      await fleet.server.flush();
      await x.watch.check();
      expect(x.watch.holdRemainingMs).toBeGreaterThan(0);
      // Fails: lost-at is written again 3 s early (its age counted on the stepped wall clock).
      expect((await lossTime(fleet, prefix)) - lossAt).toBeGreaterThan(-100);
      // A rolling restart brings up y (true clock) after the hold: it learns the loss from lost-at.
      while ((await fleet.client().pttl(`${prefix}{replay}:loss-hold`)) > 0) await sleep(100);
      const y = await instance(prefix, realNow);
      await started(y);
      expect(await y.verify(used, DAY)).toMatchObject({ verified: false, failureReasons: ['nonce_replay'] });
    },
    LONG,
  );
});
