/**
 * The hold key's time to live is sent in whole milliseconds: Redis refuses `PX 330123.456` ("value is not
 * an integer"), and the refusal was swallowed, so a noticer whose hold came out fractional (a lead read
 * earlier than 30 s counts less its age, read on monotonic time) published no hold and the fleet's other
 * instances recorded through it (a review). A hold of a fractional length stands for that here. And a
 * key left without a time to live is replaced.
 */
import { redisLossFleet } from './support/redis-loss-fleet.js';

const fleet = redisLossFleet();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('a hold of a fractional length is published to the fleet', async () => {
  const noticer = fleet.instance('whole-ms:', 8_000.5);
  await noticer.watch.check();
  await fleet.server.flush();
  await noticer.watch.check();
  expect(noticer.watch.holdRemainingMs).toBeGreaterThan(0);
  await sleep(50);
  expect(await fleet.client().pttl('whole-ms:{replay}:loss-hold')).toBeGreaterThan(0);
});

// A review: a hold key with no time to live (an operator's PERSIST, a migration tool that drops TTLs) is
// ignored by every read and was never overwritten: no noticer could publish the fleet's hold.
it('a hold key with no time to live is replaced by the noticer of a loss', async () => {
  const noticer = fleet.instance('persisted:', 8_000);
  await noticer.watch.check();
  await fleet.server.flush();
  await fleet.client().set('persisted:{replay}:loss-hold', 'left without a TTL');
  await noticer.watch.check();
  expect(noticer.watch.holdRemainingMs).toBeGreaterThan(0);
  await sleep(50);
  expect(await fleet.client().pttl('persisted:{replay}:loss-hold')).toBeGreaterThan(0);
});
