/**
 * An instance whose record invocation finds another instance's loss hold (`{-4, heldMs}`) adopted it
 * with the hold's time to live as Redis read it when the script ran, counted from when the reply was
 * handled: a reply handled late (a busy event loop, a pause) held this instance past the hold key's
 * expiry by the delay, and took the loss as later than it was by as much. The history watch's own read
 * counts the hold from before its read is sent; the record invocation now does the same.
 *
 * What the delay cost (docs/storage.md, "one loss, one hold … never extend it"):
 * - holding past the key, the instance's next held read found the key gone and took it for a second
 *   flush: it set the hold again, and an instance whose hold had ended adopted a "new" one (a second
 *   loss reported, recording refused again);
 * - its loss time later than the loss by the delay: lines stamped in between (after the loss) were
 *   answered nonce_replay by it, whatever window.
 */
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { FleetSessionEpoch, RedisHistoryWatch, RedisRateLimitStore } from '@passport/adapters/redis';
import { RecordingPausedError } from '@passport/core/ports';
import { redisLossFleet } from './support/redis-loss-fleet.js';

const fleet = redisLossFleet();
const instance = fleet.instance;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Keeps the event loop busy (a long synchronous task): a reply that arrives meanwhile waits. */
const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

it("an instance that handles a record invocation's hold reply late holds no longer than the hold key, and keeps the loss's time", async () => {
  const holdMs = 1500;
  const lateMs = 400;
  const a = instance('late1:', holdMs);
  const b = instance('late1:', holdMs);
  await a.watch.check();
  await b.watch.check();
  // Each has recorded once (its script is loaded on its connection: one round trip per invocation).
  await expect(a.store.recordIfAbsent('x', Date.now(), Date.now() + 60_000)).resolves.toEqual({
    recorded: true,
  });
  await expect(b.store.recordIfAbsent('y', Date.now(), Date.now() + 60_000)).resolves.toEqual({
    recorded: true,
  });
  // Redis comes back with older data (the counter behind: a restart from a snapshot, which the marker
  // survives): A's next record notices it and sets the hold for the fleet. B knows the marker, so its
  // record invocation finds the hold itself ({-4, heldMs}).
  await a.client.set('late1:{replay}:generation', '0');
  await expect(a.store.recordIfAbsent('w', Date.now(), Date.now() + 60_000)).rejects.toThrow(
    /older replay records/,
  );
  expect(a.losses).toHaveLength(1);
  for (let i = 0; i < 20 && (await a.client.exists('late1:{replay}:loss-hold')) === 0; i++) await sleep(5);
  const lostAt = a.store.lostRecordsAtMs() as number;
  await sleep(50);
  // B's next record finds the hold; its reply is handled 400 ms after Redis ran the script.
  const refused = b.store
    .recordIfAbsent('z', Date.now(), Date.now() + 60_000)
    .catch((error: unknown) => error);
  setImmediate(() => busy(lateMs)); // after the invocation leaves (at the end of this turn)
  expect(await refused).toBeInstanceOf(RecordingPausedError);
  const keyLeftMs = await a.client.pttl('late1:{replay}:loss-hold');
  expect(keyLeftMs).toBeGreaterThan(0);
  // B holds no longer than the key lives (a little slack for this read's own round trip).
  expect(b.watch.holdRemainingMs).toBeLessThanOrEqual(keyLeftMs + 50);
  // And takes the loss's time, not the loss's time plus the delay.
  expect(b.store.lostRecordsAtMs() as number).toBeLessThanOrEqual(lostAt + 100);
  expect(b.losses).toHaveLength(1);

  // Once the key has expired, B's read finds no hold to put back, and A sees one loss only.
  await sleep(keyLeftMs + 30);
  await expect(a.client.exists('late1:{replay}:loss-hold')).resolves.toBe(0);
  await b.watch.check();
  await a.watch.check();
  expect(a.losses).toHaveLength(1);
  expect(a.watch.problem).toBeUndefined();
  await expect(a.client.exists('late1:{replay}:loss-hold')).resolves.toBe(0);
});

/**
 * A watch whose clock (and monotonic time) moves 400 ms on right after its first reading once armed (after
 * its construction, which reads the clock too): the reply of its next read is handled 400 ms after the
 * read was sent.
 */
function lateWatch(prefix: string, holdMs: number) {
  let lateMs = 0;
  let arm = false;
  const client = fleet.client();
  const losses: number[] = [];
  const watch = new RedisHistoryWatch(client, {
    prefix,
    holdMs,
    onLoss: (at) => losses.push(at),
    nowMs: () => {
      const at = Date.now() + lateMs;
      if (arm) [arm, lateMs] = [false, 400];
      return at;
    },
  });
  fleet.track(watch);
  return { watch, client, losses, arm: () => (arm = true) };
}

/** Redis's clock (ms), as the scripts read it. */
async function redisNowMs(client: Redis): Promise<number> {
  const [seconds, micros] = await client.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

// The same conversion elsewhere: a time Redis read (its clock, a loss's time on it) turned into this
// instance's time from when the reply was handled rather than from before the read was sent.
it("an instance that learns the fleet's loss time (lost-at) from a reply handled late takes the loss's time, not a later one", async () => {
  const a = instance('late2:', 300);
  await a.watch.check();
  await a.client.del('late2:{replay}:history');
  await a.watch.check();
  const lostAt = a.store.lostRecordsAtMs() as number;
  await sleep(400); // the hold is over: a later instance learns the loss from lost-at alone
  // C handles the reply of its first read 400 ms after sending it (its clock moves 400 ms on after the
  // read's first reading: the test's own clock is C's monotonic time too).
  const { watch: c, arm } = lateWatch('late2:', 300);
  arm();
  await c.check();
  // Its loss time is the loss's (within the clocks' jitter), not 400 ms after it: lines stamped in
  // between were made after the loss.
  expect(c.holdRemainingMs).toBe(0);
  expect(Math.abs((c.lostAtMs as number) - lostAt)).toBeLessThan(100);
});

it("a take whose reply is handled late does not leave the session cache's estimate of Redis's clock behind by the delay", async () => {
  const client = fleet.client();
  const epoch = new FleetSessionEpoch();
  const limits = new RedisRateLimitStore(client, {
    prefix: 'late3:',
    namespace: 'public',
    sessionEpoch: epoch,
  });
  const policy = { capacity: 100, refillPerMs: 1 };
  await limits.take('warm', policy, Date.now());
  const taken = limits.take('c', policy, Date.now());
  setImmediate(() => busy(400)); // after the invocation leaves (at the end of this turn)
  await taken;
  const estimated = (epoch.current() as { serverNowMs: number }).serverNowMs;
  const actual = await redisNowMs(client);
  // At most the read's own round trip behind (the cache judges a session's end on Redis's clock by it).
  expect(estimated).toBeGreaterThanOrEqual(actual - 50);
});

// The watch's own read that finds another instance's hold: counted from before the read was sent too
// (a mutation probe: the hold adopted at its PTTL from the reply passed every test).
it("an instance whose read finds another instance's hold and handles the reply late holds no longer than the key, and keeps the loss's time", async () => {
  const a = instance('late4:', 1500);
  await a.watch.check();
  await a.client.del('late4:{replay}:history');
  await a.watch.check();
  for (let i = 0; i < 20 && (await a.client.exists('late4:{replay}:loss-hold')) === 0; i++) await sleep(5);
  const lostAt = a.store.lostRecordsAtMs() as number;
  // C's clock (and monotonic time) moves 400 ms on between the read's send and its reply.
  const { watch: c, client, losses, arm } = lateWatch('late4:', 1500);
  arm();
  await c.check();
  const keyLeftMs = await client.pttl('late4:{replay}:loss-hold');
  expect(losses).toHaveLength(1);
  expect(c.holdRemainingMs).toBeLessThanOrEqual(keyLeftMs - 300);
  expect(Math.abs(losses[0] - lostAt)).toBeLessThan(100);
});
