/**
 * learnLossTime's "same loss" span (888c336: max(1000, holdMs + holdExtensionMs)) uses the extension of
 * this instance's OWN LAST HOLD, not of the loss it knows. An instance whose last hold was lengthened by
 * the fleet's spread (E) and that then learned a later loss from `lost-at` alone (it held no hold of that
 * one: cut off, or away, for its whole hold) takes a genuine second loss, after that loss's hold
 * (holdMs, no extension) but within holdMs + E of it, for the same loss: the boundary stays at the first,
 * and a line used between the two losses (its record lost with the second) verifies again on it with a
 * long window (a review of 888c336).
 *
 * Harness as redis-loss-clock-step-learned.spec.ts (real redis-server, the real verify, skew 1 s, hold 8 s).
 */
import { redisLossFleet } from './support/redis-loss-fleet.js';
import { HOLD, DAY, sleep, line, started, lossInstance, redisNowMs } from './support/redis-loss-clocks.js';

const LONG = 60_000;
const fleet = redisLossFleet();

const realNow = Date.now.bind(Date);
/** The system wall clock's offset from the real time (ms): a step moves it. */
const systemOffsetMs = 0;
beforeAll(() => {
  Date.now = () => realNow() + systemOffsetMs;
});
afterAll(() => {
  Date.now = realNow;
});

/** `nowMs` undefined: the system clock (Date.now) and monotonic time (performance.now), as the server. */
function instance(prefix: string, nowMs?: () => number) {
  return lossInstance(fleet, prefix, { nowMs });
}

describe('a second loss learned from lost-at after a hold it did not hold, the last hold lengthened', () => {
  it(
    'takes the second loss as new: a line used between the two verifies nonce_replay (24 h window)',
    async () => {
      const prefix = 'stale-extension:';
      const x = instance(prefix);
      await started(x);
      const client = fleet.client();
      // Loss 0: x adopts a hold lengthened by the fleet's spread (20 s), late in it (1 s left).
      await client.set(
        `${prefix}{replay}:loss-hold`,
        `${new Date(Date.now() + 1_000).toISOString()} lead=0 extended=20000`,
        'PX',
        1_000,
      );
      await x.watch.check();
      expect(x.watch.holdRemainingMs).toBeGreaterThan(0);
      while (x.watch.holdRemainingMs > 0) await sleep(50);
      await sleep(1_500);
      // Loss 1, noticed by another instance (the fleet true: no extension, hold 8 s); x learns it from
      // lost-at only (cut off through its hold).
      const loss1 = await redisNowMs(fleet);
      await client.set(`${prefix}{replay}:lost-at`, String(loss1), 'PX', 3_600_000);
      await client.set(`${prefix}{replay}:lost-lead`, '0', 'PX', 3_600_000);
      await x.watch.check();
      expect(Math.abs((x.watch.lostAtMs ?? NaN) - loss1)).toBeLessThan(500);
      // Loss 1's hold is over (8 s); a line is used (through another instance) at loss1 + 9 s.
      await sleep(HOLD + 1_000);
      const used = line(Date.now());
      // Loss 2 (a restart from a snapshot taken before that line was recorded: the marker survives),
      // noticed by another instance: lost-at raised to it. x is cut off through its hold (8 s) too.
      await sleep(500);
      const loss2 = await redisNowMs(fleet);
      await client.set(`${prefix}{replay}:lost-at`, String(loss2), 'PX', 3_600_000);
      await client.set(`${prefix}{replay}:lost-lead`, '0', 'PX', 3_600_000);
      await sleep(HOLD + 500);
      await x.watch.check();
      // Fails: loss2 - loss1 (about 9.5 s) is within holdMs + x's last extension (28 s): taken for loss 1.
      expect((x.watch.lostAtMs ?? NaN) - loss2).toBeGreaterThan(-500);
      expect(await x.verify(used, DAY)).toMatchObject({ verified: false, failureReasons: ['nonce_replay'] });
    },
    LONG,
  );
});
