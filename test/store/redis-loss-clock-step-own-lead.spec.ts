/**
 * A step of an instance's wall clock ahead between its last clock check and a Redis loss (an NTP step within
 * the 5 s before it). docs/storage.md ("Clocks off Redis's during a loss") says an offset that changed
 * within the 5 s before the loss is read as at the last check, "a step is followed; a drift is not". The
 * step is not followed: the noticer takes its loss back by the step (`withoutLead`) and its offset by the
 * same step (`offsetAsTakenNow(true)`), and the fleet's lead (`fleetLeadMs`, the last checks' reading)
 * does not include it, so the boundary is L + lead (read before the step), and a line the stepped
 * instance accepted between the step and the loss (stamped up to L + step + skew) verifies again after the
 * hold with a 24 h window, on the other instances (which learn L and that lead) and on itself (a review).
 *
 * Harness as redis-loss-clock-step.spec.ts (real redis-server, the real verify, skew 1 s, a short hold).
 */
import { redisLossFleet } from './support/redis-loss-fleet.js';
import {
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

describe('a step ahead of the noticer between its last clock check and the loss', () => {
  afterEach(() => {
    systemClock.offsetMs = 0;
  });

  it(
    'stepped 3 s ahead after its last check: the fleet refuses a line it accepted just before the loss (24 h window)',
    async () => {
      const prefix = 'own-step:';
      const x = await instance(prefix);
      const a = await instance(prefix, realNow);
      await started(x, a);
      // NTP steps x 3 s ahead within the 5 s before the loss (after its last check).
      systemClock.offsetMs = 3_000;
      const used = line(x.nowMs());
      expect(await x.verify(used, DAY)).toMatchObject({ verified: true });
      await fleet.server.flush();
      await x.watch.check();
      await a.watch.check();
      const lossAt = await lossTime(fleet, prefix);
      while (x.watch.holdRemainingMs > 0 || a.watch.holdRemainingMs > 0) await sleep(50);
      await sleep(100);
      // Fails: both take the boundary as L (lead 0, as read before the step), the line is stamped L + 3 s.
      expect(x.store.lostRecordsAtMs()! - lossAt).toBeGreaterThan(3_000 - 100);
      expect(a.store.lostRecordsAtMs()! - lossAt).toBeGreaterThan(3_000 - 100);
      expect(await a.verify(used, DAY)).toMatchObject({ verified: false, failureReasons: ['nonce_replay'] });
    },
    LONG,
  );
});
