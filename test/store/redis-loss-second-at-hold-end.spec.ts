/**
 * A second loss in the last moment of a hold, after one instance's hold has ended but while another's
 * still runs (within `sameHoldMarginMs` of each other: two noticers whose readings of the fleet's spread
 * differ by less than it, 0.8 s here). The instance whose hold ended has recorded a line since; the loss
 * takes that record. The instance still holding took the loss for the one it holds already (a second
 * flush within its hold) and kept the first loss's time: put back as the hold key, that key ran only for
 * what was left of its hold, and the other instance adopted it as the loss's hold (under a second) with
 * the first loss's time. The line then verified again on it with the default window, and on either with
 * a day's (a review of 1.14.0).
 *
 * Harness: redis-loss-clocks.ts (real redis-server, the core's verify; W 6 s, skew 1 s, hold 8 s, margin
 * 60 s).
 */
import { redisLossFleet } from './support/redis-loss-fleet.js';
import { DAY, HOLD, MARGIN, holdOver, line, lossInstance, started } from './support/redis-loss-clocks.js';

const LONG = 60_000;
const fleet = redisLossFleet();

/** Two instances noticing one loss, `x`'s reading of the spread 0.8 s wider; `n`'s hold then ends first. */
async function firstLoss(prefix: string) {
  const n = lossInstance(fleet, prefix, { intervalMs: 1e9 });
  const x = lossInstance(fleet, prefix, { intervalMs: 1e9 });
  await started(n, x);
  n.watch.observeFleetClocks(0, 0, 0, MARGIN);
  x.watch.observeFleetClocks(0, 800, 0, MARGIN);
  await fleet.server.flush();
  await n.watch.check();
  x.watch.generationWentBack();
  expect(x.watch.holdRemainingMs).toBeGreaterThan(HOLD + 500);
  await holdOver(n);
  expect(x.watch.holdRemainingMs).toBeGreaterThan(0);
  return { n, x };
}

it(
  'the instance still holding finds it first: the other holds a whole hold again, and the line is nonce_replay after it',
  async () => {
    const { n, x } = await firstLoss('second-at-end-x:');
    const used = line(n.nowMs());
    expect(await n.verify(used)).toMatchObject({ verified: true });
    await fleet.server.flush();
    await x.watch.check();
    await n.watch.check();
    // Was: under a second (what was left of x's hold), then the line verified again on n.
    expect(n.watch.holdRemainingMs).toBeGreaterThan(HOLD - 1_000);
    await holdOver(n);
    await holdOver(x);
    expect(await n.verify(used)).toMatchObject({ verified: false });
    expect(await n.verify(used, DAY)).toMatchObject({ verified: false, failureReasons: ['nonce_replay'] });
    expect(await x.verify(used, DAY)).toMatchObject({ verified: false, failureReasons: ['nonce_replay'] });
  },
  LONG,
);

it(
  'the instance whose hold ended finds it first: the one still holding takes the new loss time too, and the line is nonce_replay on it after the hold',
  async () => {
    const { n, x } = await firstLoss('second-at-end-n:');
    const used = line(n.nowMs());
    expect(await n.verify(used)).toMatchObject({ verified: true });
    await fleet.server.flush();
    await n.watch.check();
    expect(n.watch.holdRemainingMs).toBeGreaterThan(HOLD - 1_000);
    await x.watch.check();
    await holdOver(n);
    await holdOver(x);
    // Was: verified on x (its loss time the first loss's, the line stamped a hold after it).
    expect(await x.verify(used, DAY)).toMatchObject({ verified: false, failureReasons: ['nonce_replay'] });
    expect(await n.verify(used, DAY)).toMatchObject({ verified: false, failureReasons: ['nonce_replay'] });
  },
  LONG,
);
