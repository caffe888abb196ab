/**
 * As test/clock/loss-time-forward-step.spec.ts, on Redis: a flush noticed while this instance's wall clock
 * is stepped ahead keeps the stepped time as the loss's time (RedisHistoryWatch.noticeLoss), and once the
 * clock is back and the hold over, verify answers every fresh line nonce_replay for as long as the step
 * was (lostRecordsAtMs() in the future). A review.
 *
 * `PASSPORT_TEST_REDIS_URL` (a database this test may flush) replaces the test's own redis-server.
 */
import { Redis } from 'ioredis';
import { RedisHistoryWatch, RedisReplayStore } from '@passport/adapters/redis';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { installWallClockStep, stepWallClock } from '../support/wall-clock-step.js';

let server: RedisServer | undefined;
let client: Redis;
let watch: RedisHistoryWatch | undefined;

installWallClockStep();

beforeAll(async () => {
  const given = process.env.PASSPORT_TEST_REDIS_URL;
  if (given === undefined) server = await startRedisServer();
  client = new Redis(given ?? server!.url);
  if (given !== undefined) await client.flushdb();
});
afterAll(async () => {
  watch?.stop();
  client.disconnect();
  await server?.stop();
});

it('a loss noticed during a step ahead is not "in the future" once the clock comes back', async () => {
  watch = new RedisHistoryWatch(client, { prefix: 'lstep:', holdMs: 100 });
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
