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
let watch: RedisHistoryWatch | undefined;
const realDateNow = Date.now.bind(Date);

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

it('a wall clock stepped ahead by more than a hold is not "away": an older backup restored is held', async () => {
  // The app's wiring: no nowMs given, so the watch reads Date.now (stepped here) and performance.now (not).
  const losses: number[] = [];
  watch = new RedisHistoryWatch(client, { prefix: 'step1:', holdMs: 2000, onLoss: (at) => losses.push(at) });
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
