/**
 * The fleet's loss time (`<prefix>{replay}:lost-at`, 1.11.0), as docs/storage.md says: "an instance
 * started after a loss, during or after its hold, knows its time too", and a line stamped after the
 * loss (beyond HOLA_FUTURE_SKEW_MS) is not answered nonce_replay for it.
 *
 * A review found two gaps:
 * - a `lost-at` later than Redis's own clock (Redis's clock set back after the loss was noticed, or a
 *   failover to a replica whose clock is behind the old primary's) was learned again at every check as
 *   "now": the instance's loss time followed its clock for as long as the key outran Redis's (up to
 *   25 h), and verify answered every line nonce_replay (every line is stamped before the loss time plus
 *   the future skew);
 * - a second loss within the hold (a second flush, a second restart from the same snapshot) erased
 *   `lost-at` and the instance holding put back the hold only, so an instance started after the hold
 *   knew of no loss, and accepted lines used before it with a long window.
 */
import { Redis } from 'ioredis';
import { RedisHistoryWatch } from '@passport/adapters/redis';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

let server: RedisServer;
let client: Redis;
const watches: RedisHistoryWatch[] = [];
beforeAll(async () => {
  server = await startRedisServer();
  client = new Redis(server.url);
});
afterAll(async () => {
  for (const watch of watches) watch.stop();
  client.disconnect();
  await server.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function redisNowMs(): Promise<number> {
  const [seconds, micros] = await client.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

it('a lost-at later than Redis\'s clock is learned once, not again at every check as "now"', async () => {
  const a = new RedisHistoryWatch(client, { prefix: 'ltr1:', holdMs: 300 });
  watches.push(a);
  await a.check();
  // A loss noticed while Redis's clock ran an hour ahead, which has been set right since (or a failover
  // to a replica an hour behind the primary that wrote it).
  await client.set('ltr1:{replay}:lost-at', String((await redisNowMs()) + 3_600_000), 'PX', 90_000_000);
  await a.check();
  const learned = a.lostAtMs as number;
  expect(learned).toEqual(expect.any(Number));
  await sleep(1500);
  await a.check();
  await sleep(1500);
  await a.check();
  // One loss: its time stays where it was learned. It moved with the clock, so a line stamped 3 s ago
  // (before the loss time plus any future skew) was nonce_replay, on every instance, for the hour.
  expect(a.lostAtMs).toBe(learned);
});

it('a second loss within the hold keeps lost-at for instances started after the hold', async () => {
  const a = new RedisHistoryWatch(client, { prefix: 'ltr2:', holdMs: 1500 });
  watches.push(a);
  await a.check();
  await client.del('ltr2:{replay}:history');
  await a.check();
  const noticedAt = a.lostAtMs as number;
  expect(noticedAt).toEqual(expect.any(Number));
  await sleep(50);
  expect(await client.exists('ltr2:{replay}:lost-at')).toBe(1);
  // A second flush within the hold (a crash-looping Redis without persistence).
  await client.del('ltr2:{replay}:history', 'ltr2:{replay}:loss-hold', 'ltr2:{replay}:lost-at');
  await a.check();
  expect(a.problem).toMatch(/recording refused until/);
  // After the hold, B starts (a rolling restart).
  await sleep(1800);
  const bClient = new Redis(server.url);
  try {
    const b = new RedisHistoryWatch(bClient, { prefix: 'ltr2:', holdMs: 1500 });
    watches.push(b);
    await b.check();
    expect(b.holdRemainingMs).toBe(0);
    expect(b.lostAtMs).not.toBeNull();
    expect(Math.abs((b.lostAtMs as number) - noticedAt)).toBeLessThan(200);
  } finally {
    bClient.disconnect();
  }
});
