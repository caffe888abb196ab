/**
 * An instance that adopts another's hold sets its own deadline from the hold's PTTL when it handles the
 * reply, so it holds past the key's expiry by however late it handled the reply (a busy event loop, a
 * pause), the largest delay of all its reads. A holding instance reads every HELD_READ_INTERVAL_MS
 * (1.11.0) and, finding the key gone while it still holds, takes it for a second flush: it sets the
 * hold again (for its remainder), republishes lost-at and forgets the sessions stored since. Every
 * instance whose hold ended then adopts a "new" hold: a second loss logged, recording refused again,
 * though there was one loss (docs/storage.md: "one loss, one hold … never extend it").
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

it('an adopter that handled the hold late does not start the hold again once the key expires', async () => {
  const aLosses: number[] = [];
  const a = new RedisHistoryWatch(client, { prefix: 'tail1:', holdMs: 1500, onLoss: (at) => aLosses.push(at) });
  watches.push(a);
  // B handles the reply of its adopting read 300 ms after sending it (its clock moves 300 ms on after
  // the first reading of that read: the test's own clock is B's monotonic time too).
  let lateMs = 0;
  let arm = false;
  const b = new RedisHistoryWatch(client, {
    prefix: 'tail1:',
    holdMs: 1500,
    nowMs: () => {
      const at = Date.now() + lateMs;
      if (arm) [arm, lateMs] = [false, 300];
      return at;
    },
  });
  watches.push(b);
  await a.check();
  await b.check();
  await client.del('tail1:{replay}:history');
  await a.check();
  expect(aLosses).toHaveLength(1);
  await sleep(50);
  arm = true;
  await b.check();
  lateMs = 0;
  expect(b.problem).toMatch(/recording refused until/);
  // The key has expired (A's hold is over); B still holds for up to 300 ms, and reads meanwhile.
  const expiresIn = await client.pttl('tail1:{replay}:loss-hold');
  await sleep(Math.max(0, expiresIn) + 100);
  await expect(client.exists('tail1:{replay}:loss-hold')).resolves.toBe(0);
  await b.check();
  await a.check();
  // One loss: no second hold on A, no second report.
  expect(aLosses).toHaveLength(1);
  expect(a.problem).toBeUndefined();
});
