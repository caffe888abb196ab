/**
 * An instance that adopts another instance's loss hold (started, restarted or reconnected during it: the
 * middle of a rolling upgrade) must know the loss's time, as docs/storage.md says ("the instance that
 * noticed the loss, or adopted its hold, knows its time"). It took its own adoption time instead, so
 * verify there answered nonce_replay for fresh lines stamped between the loss and its start (never used:
 * stamped after the loss), and recorded them, so they were refused on every instance (an upgrade probe:
 * a line stamped 9 s before a second instance started during the hold was refused on both).
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

it('an instance that adopts a running hold takes the loss as noticed by the instance that started it', async () => {
  const losses: number[] = [];
  const a = new RedisHistoryWatch(client, {
    prefix: 'adopt1:',
    holdMs: 5000,
    onLoss: (at) => losses.push(at),
  });
  watches.push(a);
  await a.check();
  await client.del('adopt1:{replay}:history');
  await a.check();
  expect(losses).toHaveLength(1);
  const noticedAt = a.lostAtMs as number;
  // B starts (a rolling upgrade's new instance) 1.5 s into A's hold.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const bClient = new Redis(server.url);
  try {
    const b = new RedisHistoryWatch(bClient, { prefix: 'adopt1:', holdMs: 5000 });
    watches.push(b);
    await b.check();
    expect(b.problem).toMatch(/recording refused until/);
    // The loss's time (within the clocks' jitter), not B's start: lines stamped in between are fresh.
    expect(Math.abs((b.lostAtMs as number) - noticedAt)).toBeLessThan(200);
  } finally {
    bClient.disconnect();
  }
});

it('an instance started after a loss and its hold learns the loss time from Redis; one started with no loss knows none', async () => {
  const a = new RedisHistoryWatch(client, { prefix: 'adopt2:', holdMs: 300 });
  watches.push(a);
  await a.check();
  await client.del('adopt2:{replay}:history');
  await a.check();
  const noticedAt = a.lostAtMs as number;
  expect(noticedAt).toEqual(expect.any(Number));
  // The hold is over before B starts (a rolling restart after it): no hold to adopt.
  await new Promise((resolve) => setTimeout(resolve, 600));
  const bClient = new Redis(server.url);
  try {
    const b = new RedisHistoryWatch(bClient, { prefix: 'adopt2:', holdMs: 300 });
    watches.push(b);
    await b.check();
    expect(b.holdRemainingMs).toBe(0);
    expect(b.problem).toBeUndefined();
    expect(Math.abs((b.lostAtMs as number) - noticedAt)).toBeLessThan(200);
    expect(b.notice).toMatch(/lost replay records/);
    // A later check learns nothing new from the same loss.
    await b.check();
    expect(Math.abs((b.lostAtMs as number) - noticedAt)).toBeLessThan(200);

    const c = new RedisHistoryWatch(bClient, { prefix: 'adopt3:', holdMs: 300 });
    watches.push(c);
    await c.check();
    expect(c.lostAtMs).toBeNull();
    expect(c.notice).toBeUndefined();
  } finally {
    bClient.disconnect();
  }
});
