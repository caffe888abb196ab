/**
 * `REDIS_LOSS_HOLD_MS=0` "records again at once" (README's configuration table; docs/storage.md). Since
 * 1.13.0 the noticer lengthens the hold by the fleet's clock spread, and with a hold of 0 that extension
 * alone became a hold: 503s for as long as the spread (up to twice the margin, 30 min) after a loss the
 * operator chose not to hold for.
 */
import { RecordingPausedError } from '@passport/core/ports';
import { RedisHistoryWatch, RedisReplayStore } from '@passport/adapters/redis';
import { redisLossFleet } from './support/redis-loss-fleet.js';

const fleet = redisLossFleet();

function instance(prefix: string, offsetMs: number) {
  const client = fleet.client();
  const nowMs = () => Date.now() + offsetMs;
  const watch = fleet.track(new RedisHistoryWatch(client, { prefix, holdMs: 0, nowMs }));
  const store = new RedisReplayStore(client, { prefix, clockSkewMarginMs: 60_000, history: watch });
  return { nowMs, watch, store, checkClock: () => store.checkClock(nowMs) };
}

it('REDIS_LOSS_HOLD_MS=0 with clocks 4 s apart: a loss holds nothing', async () => {
  const prefix = 'hold-zero:';
  const a = instance(prefix, 4_000);
  const b = instance(prefix, 0);
  for (const i of [a, b]) await i.watch.check();
  for (let round = 0; round < 2; round++) for (const i of [a, b]) await i.checkClock();
  await fleet.server.flush();
  await a.watch.check();
  await b.watch.check();
  // Fails on b: about 4 s (the spread). (a, whose clock made the new marker, reports a past loss at a hold
  // of 0; b, behind that marker, notices a loss and holds for its extension alone, and publishes it.)
  expect(a.watch.holdRemainingMs).toBe(0);
  expect(b.watch.holdRemainingMs).toBe(0);
  const recorded = await b.store
    .recordIfAbsent(`k${Math.random()}`, b.nowMs(), b.nowMs() + 1000)
    .catch((error: unknown) => error);
  expect(recorded).not.toBeInstanceOf(RecordingPausedError);
});
