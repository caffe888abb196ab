/**
 * A rolling upgrade 1.12.0 -> 1.13.0 (or a rollback) on a Redis fleet whose clocks differ: a 1.12.0
 * instance started when a 1.13.0 noticer's lengthened hold has less than its own hold left takes the loss
 * as the key's end less its own hold (the loss plus the extension, the fleet's clock spread) and raises
 * `lost-at` to it. Every 1.13.0 instance then adds the fleet's lead (`lost-lead`) on top of that raised
 * time, and answers fresh lines stamped on true clocks after the hold `nonce_replay` for up to the lead
 * less the hold (an upgrade probe: REDIS_LOSS_HOLD_MS 30 s, instances +90 s and -60 s, 60 s of true
 * lines refused after the hold; with the app's 331 s hold, whenever an instance leads by more than
 * 331 s, within the 15 min margin).
 *
 * Real redis-server, the real verify (core `createHolaVerifier`) on each instance's clock, windows scaled
 * down as in redis-loss-clock-spread.spec.ts (W = 6 s, skew 1 s, hold 8 s, margin 60 s). The 1.12.0
 * instance is played by the `lost-at` value its adoptHold writes (now + the key's time to live - holdMs).
 */
import { redisLossFleet } from './support/redis-loss-fleet.js';
import {
  HOLD,
  sleep,
  line,
  started,
  holdOver,
  lose,
  type LossInstance,
  offsetInstance,
  redisNowMs,
} from './support/redis-loss-clocks.js';

/** Each test waits out a hold (8 s, longer once the spread is added). */
const LONG = 60_000;

const fleet = redisLossFleet();

type Instance = LossInstance;

const instance = (prefix: string, offsetMs: number): Instance => offsetInstance(fleet, prefix, offsetMs);

describe('a 1.12.0 instance restarted late in a lengthened hold (rolling upgrade or rollback)', () => {
  // An upgrade probe (real fleet, REDIS_LOSS_HOLD_MS 30 s, instances +90 s, -60 s, true): a 1.12.0 instance
  // restarted when the hold key had under a hold left took the loss as the key's end less its own hold
  // (L + extension) and raised `lost-at` to it; every 1.13.0 instance then added the fleet's lead on top
  // (boundary L + extension + lead) and answered fresh lines stamped on true clocks after the hold
  // `nonce_replay` for lead - hold (60 s in the probe). With the app's hold (331 s), whenever an instance
  // leads by more than 331 s (within the 15 min margin).
  it(
    'after the hold, a line stamped on a true clock after it verifies on a 1.13.0 instance',
    async () => {
      const prefix = 'spread-raised:';
      const LEAD = 20_000; // beyond the hold (8 s), within the margin (60 s)
      const a = instance(prefix, LEAD);
      const b = instance(prefix, 0);
      await started(a, b);
      await lose(fleet, b, a);
      const client = fleet.client();
      const holdKey = `${prefix}{replay}:loss-hold`;
      // What 1.12.0's adoptHold writes when it starts with the key's time to live under its own hold:
      // lostAt = now + remaining - holdMs (Redis's clock here), raised into lost-at.
      while ((await client.pttl(holdKey)) > HOLD - 500) await sleep(100);
      const redisNow = await redisNowMs(fleet);
      const remaining = await client.pttl(holdKey);
      await client.set(`${prefix}{replay}:lost-at`, String(redisNow + remaining - HOLD), 'PX', 90_000_000);
      await b.watch.check();
      await holdOver(b);
      // Stamped on a true clock after the hold's end: no line used before the loss can be this one.
      const fresh = line(Date.now());
      expect(await b.verify(fresh)).toMatchObject({ verified: true });
    },
    LONG,
  );
});
