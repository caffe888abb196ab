/**
 * A Redis loss on an instance whose wall clock was stepped since it started (an NTP correction of a clock
 * that was off at boot, a host suspend that monotonic time does not count). The watch takes such an
 * instance's loss back by the step (`withoutLead`) and then, since 1.13.0, also by the offset its clock
 * check measured (`lossLeadOverThisClockMs` subtracts o_X): the step is counted twice, and the
 * nonce_replay boundary lands D before L + lead + skew (docs/storage.md, "Clocks off Redis's during a
 * loss"), so a line used before the loss verifies again with a long window.
 *
 * Real redis-server, the real verify (core `createHolaVerifier`), windows scaled down as in
 * redis-loss-clock-spread.spec.ts (W = 6 s, skew 1 s, hold 8 s). The stepped instance runs on the system
 * wall clock (Date.now, replaced for the suite by one the test steps) and on real monotonic time, as the
 * server wires it.
 */
import { redisLossFleet } from './support/redis-loss-fleet.js';
import {
  DAY,
  line,
  started,
  holdOver,
  lossInstance,
  steppedSystemClock,
  realNow,
} from './support/redis-loss-clocks.js';

const LONG = 60_000;
const fleet = redisLossFleet();

/** The system wall clock's step from the real time (ms). */
const systemClock = steppedSystemClock();

/** `nowMs` undefined: the system clock (Date.now) and monotonic time (performance.now), as the server. */
function instance(prefix: string, nowMs?: () => number) {
  return lossInstance(fleet, prefix, { nowMs });
}

describe('after a Redis loss, an instance whose wall clock was stepped since its start', () => {
  afterEach(() => {
    systemClock.offsetMs = 0;
  });

  it(
    'started 3 s behind and set right since (NTP): refuses a line a true instance used just before the loss (24 h window)',
    async () => {
      const prefix = 'step-a:';
      systemClock.offsetMs = -3_000;
      const x = instance(prefix);
      // NTP steps it right: every clock of the fleet is true at the loss.
      systemClock.offsetMs = 0;
      const a = instance(prefix, realNow);
      await started(a, x);
      const usedLong = line(realNow());
      expect(await a.verify(usedLong, DAY)).toMatchObject({ verified: true });
      await fleet.server.flush();
      await a.watch.check();
      await x.watch.check();
      expect(x.watch.holdRemainingMs).toBeGreaterThan(0);
      await holdOver(x);
      // Fails: x takes the loss 3 s early (the step) and its offset (0) adds nothing back, so the
      // boundary is L − 3 s + 1 s and the line, stamped at L, verifies a second time.
      expect(await x.verify(usedLong, DAY)).toMatchObject({
        verified: false,
        failureReasons: ['nonce_replay'],
      });
    },
    LONG,
  );

  it(
    'stepped 3 s ahead (and kept there): refuses a line it accepted itself just before the loss (24 h window)',
    async () => {
      const prefix = 'step-b:';
      const x = instance(prefix);
      systemClock.offsetMs = 3_000;
      const b = instance(prefix, realNow);
      await started(x, b);
      const usedLong = line(x.nowMs());
      expect(await x.verify(usedLong, DAY)).toMatchObject({ verified: true });
      await fleet.server.flush();
      await x.watch.check();
      await b.watch.check();
      await holdOver(x);
      // Fails: x subtracts its 3 s twice (the step, then its offset): boundary L + 1 s, the line is
      // stamped L + 3 s. (Asked first: a nonce_replay answer records the line, for every instance.)
      expect(await x.verify(usedLong, DAY)).toMatchObject({
        verified: false,
        failureReasons: ['nonce_replay'],
      });
      // The true instance refuses it (its boundary is L + lead + skew).
      expect(await b.verify(usedLong, DAY)).toMatchObject({
        verified: false,
        failureReasons: ['nonce_replay'],
      });
    },
    LONG,
  );
});
