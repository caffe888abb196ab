/**
 * The fleet's lead is read from the clock checks of the last 30 s (FLEET_CLOCKS_READING_LIFE_MS), but a
 * lead matters for as long as lines stamped that far ahead can outlive the loss: an instance `a` ahead of
 * Redis's clock accepts lines stamped up to `a` ahead, and those stamped after the loss are covered by
 * neither the hold nor the nonce_replay boundary once its lead has left the readings. So an instance
 * 45 s ahead (within the 60 s margin) that leaves the fleet (scaled in, restarted; its report withdrawn)
 * 31 s before a loss took lines stamped 14 s after the loss: after the hold (8 s, no spread read) one
 * verifies again on a true instance with the default window (in the app's figures: an instance 3 min
 * ahead gone 1 min before the loss, a line stamped 2 min after it, fresh until 420 s after the loss,
 * past the 331 s hold). A review of 1.13.0 (bounds: how long a reading counts).
 */
import { redisLossFleet } from './support/redis-loss-fleet.js';
import { DAY, holdOver, line, lossInstance, sleep, started } from './support/redis-loss-clocks.js';

const fleet = redisLossFleet();

it('a line accepted by an instance 45 s ahead that left 31 s before the loss is nonce_replay after the hold', async () => {
  const prefix = 'lead-gone:';
  const x = lossInstance(fleet, prefix);
  const a = lossInstance(fleet, prefix, { nowMs: () => Date.now() + 45_000 });
  await started(x, a);
  // a accepts a line stamped on its clock (45 s ahead of Redis's and x's).
  const stamped = a.nowMs();
  const used = line(stamped);
  expect(await a.verify(used)).toMatchObject({ verified: true });
  // a leaves the fleet: its report withdrawn, its clock checks stop.
  a.watch.stop();
  await a.store.withdrawClockReport();
  // x goes on checking every 5 s for 31 s.
  for (let i = 0; i < 7; i++) {
    await x.checkClock();
    await sleep(5_000);
  }
  await x.checkClock();
  // The loss: x notices it.
  await fleet.server.flush();
  await x.watch.check();
  expect(x.watch.holdRemainingMs).toBeGreaterThan(0);
  // After the hold, no window verifies it again: the default one (fresh until 20 s after the loss) nor
  // a day's.
  await holdOver(x);
  while (x.nowMs() < stamped - 500) await sleep(100);
  // It verified again with the default window before (the hold, 8 s, no lead read, ended before the line
  // was even fresh on x; the record went with the loss; the boundary was the loss plus a lead of 0).
  expect(await x.verify(used)).toMatchObject({ verified: false });
  expect(await x.verify(used, DAY)).toMatchObject({ verified: false, failureReasons: ['nonce_replay'] });
}, 150_000);
