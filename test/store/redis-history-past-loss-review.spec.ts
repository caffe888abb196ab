/**
 * An instance away for longer than a hold that finds a new marker made a hold ago reports a past loss
 * (`reportPastLoss`) and takes the marker's time as its loss time. A review found it lowered a later loss
 * time it had learned from `lost-at` in the same read: Redis back from a snapshot taken after the marker
 * was made (the marker survives) is a later loss, noticed by another instance, whose `lost-at` this
 * instance learned, then replaced with the marker's older time. Lines stamped between the two, whose
 * records the restore lost, verified again on this instance with a long window, and the learned value is
 * never learned again (one value, one loss).
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

async function redisNowMs(): Promise<number> {
  const [seconds, micros] = await client.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

it('a past loss reported from the marker never lowers a later loss time learned from lost-at', async () => {
  let nowMs = Date.now();
  const losses: number[] = [];
  const a = new RedisHistoryWatch(client, {
    prefix: 'plr1:',
    holdMs: 2000,
    nowMs: () => nowMs,
    onLoss: (at) => losses.push(at),
  });
  watches.push(a);
  await a.check();
  // A is away (paused, cut off) for 10 s. Meanwhile: a flush 8 s ago (the marker made again then by
  // another instance), and Redis back from a snapshot 3 s ago, noticed by another instance (lost-at),
  // whose hold is over.
  nowMs += 10_000;
  await client.set('plr1:{replay}:history', `${nowMs - 8000}:made-while-away`);
  await client.set('plr1:{replay}:lost-at', String((await redisNowMs()) - 3000), 'PX', 90_000_000);
  nowMs += 1;
  await a.check();
  expect(losses).toHaveLength(1);
  expect(a.problem).toBeUndefined();
  // The later loss (3 s ago), within the clocks' jitter: lines stamped before it are answered nonce_replay.
  expect(a.lostAtMs as number).toBeGreaterThanOrEqual(nowMs - 3000 - 500);
  // And it stays so at the next check.
  nowMs += 1000;
  await a.check();
  expect(a.lostAtMs as number).toBeGreaterThanOrEqual(nowMs - 1000 - 3000 - 500);
});
