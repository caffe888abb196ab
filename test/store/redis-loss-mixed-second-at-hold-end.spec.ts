/**
 * A rolling upgrade 1.14.0 -> 1.14.1 (or a rollback): a second loss in the last moment of a hold, after
 * a 1.14.1 instance's hold has ended and it has recorded a line, while a 1.14.0 instance's hold, parting
 * from it by under `sameHoldMarginMs`, still runs. The 1.14.0 instance notices the loss first and takes it
 * for the one it holds: it puts the hold key back for the moment it has left, naming its extension, and
 * `lost-at` back to the first loss's time. The 1.14.1 instance then found that key ending within the
 * margin after its own hold, recorded since, and adopted it as the loss's hold: under a second, with the
 * first loss's time, so the line it had recorded verified again on it with the default window, as on a
 * 1.14.0 fleet (a review of 6bf5f21c). Its record went in with no key there, so the key was set since,
 * by an instance that saw a loss that took it: a new loss, held whole from now.
 *
 * Harness: redis-loss-clocks.ts (real redis-server, the core's verify; W 6 s, skew 1 s, hold 8 s, margin
 * 60 s). The 1.14.0 instance is played by what its noticeLoss writes (the hold key for what is left of its
 * hold, `lost-at` the first loss's time).
 */
import { redisLossFleet } from './support/redis-loss-fleet.js';
import {
  DAY,
  HOLD,
  MARGIN,
  holdOver,
  line,
  lossInstance,
  redisNowMs,
  started,
} from './support/redis-loss-clocks.js';

const LONG = 60_000;
const fleet = redisLossFleet();

it(
  'a 1.14.1 instance whose hold ended and which recorded since holds a whole hold again, and its line is nonce_replay after it',
  async () => {
    const prefix = 'mixed-second-at-end:';
    const client = fleet.client();
    const n = lossInstance(fleet, prefix, { intervalMs: 1e9 });
    await started(n);
    n.watch.observeFleetClocks(0, 0, 0, MARGIN);
    const firstLossOnRedis = await redisNowMs(fleet);
    await fleet.server.flush();
    await n.watch.check();
    expect(n.watch.holdRemainingMs).toBeGreaterThan(HOLD - 1_000);
    await holdOver(n);
    const used = line(n.nowMs());
    expect(await n.verify(used)).toMatchObject({ verified: true });
    // The second loss, and what the 1.14.0 instance still holding (its hold 800 ms longer, 500 ms of it
    // left) writes on noticing it.
    await fleet.server.flush();
    const leftMs = 500;
    const end = new Date(Date.now() + leftMs).toISOString();
    await client.set(`${prefix}{replay}:loss-hold`, `${end} lead=0 extended=800`, 'PX', leftMs);
    await client.set(`${prefix}{replay}:lost-at`, String(firstLossOnRedis), 'PX', 25 * 3_600_000);
    await n.watch.check();
    // Was: what was left of the 1.14.0 instance's hold (500 ms), with the first loss's time.
    expect(n.watch.holdRemainingMs).toBeGreaterThan(HOLD - 1_000);
    await holdOver(n);
    expect(await n.verify(used)).toMatchObject({ verified: false });
    expect(await n.verify(used, DAY)).toMatchObject({ verified: false, failureReasons: ['nonce_replay'] });
    // The fleet holds it too: the key was lengthened for the 1.14.0 instance to follow at its held reads.
  },
  LONG,
);
