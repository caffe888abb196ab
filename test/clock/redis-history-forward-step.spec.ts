/**
 * A Redis restored from an older backup (a marker made before the one this instance knows) is a loss:
 * the replay store refuses for the hold. "This instance was away for longer than a hold" (which, with an
 * old marker, makes it a past loss, reported without a hold) must be measured on monotonic time: a
 * probe stepped one instance's wall clock ahead by more than the hold (libfaketime, REDIS_LOSS_HOLD_MS
 * 30 s, a step of 60 s), restored an older backup of its Redis, and the line it had verified since the
 * backup verified again at once (no hold; the control run without the step held, 503).
 *
 * `PASSPORT_TEST_REDIS_URL` (a database this test may flush) replaces the test's own redis-server.
 */
import { Redis } from 'ioredis';
import { RedisHistoryWatch, RedisReplayStore } from '@passport/adapters/redis';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { installWallClockStep, stepWallClock } from '../support/wall-clock-step.js';

let server: RedisServer | undefined;
let client: Redis;
const watches: RedisHistoryWatch[] = [];
const realDateNow = Date.now.bind(Date);

installWallClockStep();

beforeAll(async () => {
  const given = process.env.PASSPORT_TEST_REDIS_URL;
  if (given === undefined) server = await startRedisServer();
  client = new Redis(given ?? server!.url);
  if (given !== undefined) await client.flushdb();
});
afterAll(async () => {
  for (const watch of watches) watch.stop();
  client.disconnect();
  await server?.stop();
});

it('a wall clock stepped ahead by more than a hold is not "away": an older backup restored is held', async () => {
  // The app's wiring: no nowMs given, so the watch reads Date.now (stepped here) and performance.now (not).
  const losses: number[] = [];
  const watch = new RedisHistoryWatch(client, {
    prefix: 'step1:',
    holdMs: 2000,
    onLoss: (at) => losses.push(at),
  });
  watches.push(watch);
  const store = new RedisReplayStore(client, { prefix: 'step1:', clockSkewMarginMs: 0, history: watch });
  const record = (key: string) => store.recordIfAbsent(key, Date.now(), Date.now() + 600_000);
  await watch.check();
  await expect(record('used')).resolves.toEqual({ recorded: true });

  // An older backup restored: its marker was made 5 s ago, and it lacks the record made since.
  await client.set('step1:{replay}:history', `${realDateNow() - 5000}:older-backup`);
  await client.del('step1:{replay}:r:used');
  // Meanwhile NTP steps this instance's clock 10 s ahead; no real time passes.
  stepWallClock(10_000);
  await watch.check();

  expect(losses).toHaveLength(1);
  expect(watch.problem).toMatch(/recording refused until/);
  await expect(record('used')).rejects.toThrow(/recording refused/);
});

/*
 * As test/clock/loss-time-forward-step.spec.ts, on Redis: a flush noticed while this instance's wall clock
 * is stepped ahead keeps the stepped time as the loss's time (RedisHistoryWatch.noticeLoss), and once the
 * clock is back and the hold over, verify answers every fresh line nonce_replay for as long as the step
 * was (lostRecordsAtMs() in the future). A review.
 *
 */
it('a loss noticed during a step ahead is not "in the future" once the clock comes back', async () => {
  const watch = new RedisHistoryWatch(client, { prefix: 'lstep:', holdMs: 100 });
  watches.push(watch);
  const store = new RedisReplayStore(client, { prefix: 'lstep:', clockSkewMarginMs: 0, history: watch });
  await watch.check();
  await expect(store.recordIfAbsent('used', Date.now(), Date.now() + 600_000)).resolves.toEqual({
    recorded: true,
  });
  stepWallClock(3_600_000);
  await client.flushdb();
  await watch.check();
  expect(store.lostRecordsAtMs()).not.toBeNull();
  stepWallClock(0);
  await new Promise((resolve) => setTimeout(resolve, 200)); // the hold ends
  expect(watch.problem).toBeUndefined();
  expect(store.lostRecordsAtMs()!).toBeLessThanOrEqual(Date.now());
});

// A mutation probe: an adopted hold's loss time kept with the lead on, and a past loss's marker time
// (another machine's clock) taken back by this clock's lead, both passed.
it("a hold adopted from another instance during a step ahead is not in the future once the clock is back; a past loss's marker time is taken as it is", async () => {
  const noticing = new RedisHistoryWatch(client, { prefix: 'adopt:', holdMs: 2000 });
  const adopting = new RedisHistoryWatch(client, { prefix: 'adopt:', holdMs: 2000 });
  watches.push(noticing, adopting);
  const store = new RedisReplayStore(client, { prefix: 'adopt:', clockSkewMarginMs: 0, history: adopting });
  await noticing.check();
  await adopting.check();
  stepWallClock(3_600_000);
  await client.del('adopt:{replay}:history');
  await noticing.check(); // notices the loss, and publishes the hold
  await adopting.check(); // adopts it
  expect(adopting.problem).toMatch(/recording refused until/);
  stepWallClock(0);
  expect(store.lostRecordsAtMs()!).toBeLessThanOrEqual(Date.now());

  const away = new RedisHistoryWatch(client, { prefix: 'past:', holdMs: 100 });
  watches.push(away);
  await away.check();
  await new Promise((resolve) => setTimeout(resolve, 300)); // away for longer than a hold
  stepWallClock(3_600_000);
  const madeAt = realDateNow() - 5000;
  await client.set('past:{replay}:history', `${madeAt}:older-backup`);
  await away.check();
  expect(away.problem).toBeUndefined(); // a past loss: reported, not held
  expect(away.lostAtMs).toBe(madeAt);
  stepWallClock(0);
});

// Likewise a loss learned from lost-at (another instance noticed it) during a step ahead: on this
// instance's clock without the lead, so fresh lines are not nonce_replay once the clock is back.
it('a loss learned from lost-at during a step ahead is not in the future once the clock is back', async () => {
  const watch = new RedisHistoryWatch(client, { prefix: 'learn:', holdMs: 100 });
  watches.push(watch);
  await watch.check();
  const [seconds, micros] = await client.time();
  await client.set(
    'learn:{replay}:lost-at',
    String(Number(seconds) * 1000 + Math.floor(Number(micros) / 1000)),
    'PX',
    90_000_000,
  );
  stepWallClock(3_600_000);
  await watch.check();
  stepWallClock(0);
  expect(watch.lostAtMs).not.toBeNull();
  expect(watch.lostAtMs!).toBeLessThanOrEqual(Date.now());
});
