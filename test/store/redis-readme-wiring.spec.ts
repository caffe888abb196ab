/**
 * The Redis wiring libs/passport-adapters/README.md shows. A probe ran it as written: its first records
 * were refused with a bare Error without a code ("maxmemory-policy not read yet") until the eviction
 * watch's first read, and `await client.quit()` rejected on a client that never connected (the offline
 * queue is off), ending the process on an unhandled rejection. The refusal on a live connection before
 * the first read is now a pause (`RecordingPausedError`: the core answers 503 REPLAY_STORE_UNAVAILABLE
 * with Retry-After, as for a loss hold; with the connection down it stays a failure, with no Retry-After,
 * as test/fleet/redis-fleet.e2e.spec.ts "Redis down" requires), and the README reads the policy before
 * serving and closes with a fallback.
 */
import {
  createRedisClient,
  RedisEvictionWatch,
  RedisHistoryWatch,
  RedisReplayStore,
  whenConnected,
} from '@passport/adapters/redis';
import { isRecordingPausedError, retryAfterSecondsOfPause } from '@passport/core/ports';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { freePort } from '../support/test-app.js';

let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(() => server.stop());

it('a record on a live connection before the policy is read is a pause of a second, and the README order records the first one', async () => {
  const client = createRedisClient(server.url);
  const eviction = new RedisEvictionWatch(client);
  const history = new RedisHistoryWatch(client);
  const replay = new RedisReplayStore(client, {
    prefix: 'readme:',
    evictionProblem: () => eviction.problem,
    history,
  });
  try {
    const now = Date.now();
    // Connected, the policy not read yet (the watch's first read has not answered).
    expect(await whenConnected(client, 2000)).toBe(true);
    const early = await replay.recordIfAbsent('early', now, now + 60_000).catch((e: unknown) => e);
    expect(isRecordingPausedError(early)).toBe(true);
    expect(retryAfterSecondsOfPause(early)).toBe(1);
    // The README: read both once connected, then serve.
    await Promise.all([eviction.refresh(), history.check()]);
    await expect(replay.recordIfAbsent('first', now, now + 60_000)).resolves.toEqual({ recorded: true });
  } finally {
    eviction.stop();
    history.stop();
    await client.quit().catch(() => client.disconnect());
  }
});

it("the README's close does not reject on a client that never connected", async () => {
  const client = createRedisClient(`redis://127.0.0.1:${await freePort()}`);
  const eviction = new RedisEvictionWatch(client);
  const history = new RedisHistoryWatch(client);
  expect(await whenConnected(client, 300)).toBe(false);
  eviction.stop();
  history.stop();
  await expect(client.quit().catch(() => client.disconnect())).resolves.toBeUndefined();
});
