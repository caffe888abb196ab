/**
 * Found by the chaos soak (issue 17's fleet layout): a Redis restarted from an RDB snapshot brings back
 * every session closed since the snapshot. The history watch notices the loss and holds the replay
 * records (verify and login answer 503), but the session store knows nothing of it: a token whose logout
 * was answered 200, and refused on every instance right after, is accepted again until its session ends.
 * The specification: a logout takes effect at once and for good. Now the session store, given the watch,
 * forgets every session stored before the loss (unknown: log in again), as a restart without persistence
 * does; sessions created after the hold are kept.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { sampleSessionRecord } from '@passport/core/testing';
import { RedisHistoryWatch, RedisReplayStore, RedisSessionStore } from '@passport/adapters/redis';
import { freePort } from '../support/test-app.js';
import { RdbRedisServer } from '../support/rdb-redis-server.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
let port: number;
let dir: string;
let client: Redis;
let watch: RedisHistoryWatch;

let server: RdbRedisServer;

beforeAll(async () => {
  port = await freePort();
  dir = mkdtempSync(join(tmpdir(), 'passport-redis-rdb-'));
  server = new RdbRedisServer(port, dir);
  await server.start();
  client = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 0, enableOfflineQueue: false });
  await new Promise((resolve) => client.once('ready', resolve));
});
afterAll(async () => {
  watch?.stop();
  client.disconnect();
  await server.kill();
  rmSync(dir, { recursive: true, force: true });
});

it('a session closed after the snapshot stays closed once Redis is restarted from it (the loss is noticed)', async () => {
  watch = new RedisHistoryWatch(client, { holdMs: 60_000 });
  const replay = new RedisReplayStore(client, { history: watch });
  const sessions = new RedisSessionStore(client, { history: watch });
  // A second instance's store, with its own read cache, and a session open throughout.
  const other = new RedisSessionStore(client, {});
  const kept = sampleSessionRecord(8, { createdAtMs: Date.now(), expiresAtMs: Date.now() + 3_600_000 });
  await other.create(kept);
  await expect(other.get(kept.sessionId)).resolves.toMatchObject({ closedAtMs: null });
  await watch.check();
  await replay.recordIfAbsent('before-snapshot', Date.now(), Date.now() + 60_000);
  const s = sampleSessionRecord(7, { createdAtMs: Date.now(), expiresAtMs: Date.now() + 3_600_000 });
  await sessions.create(s);
  await client.save();
  // After the snapshot: a logout (answered), and a line recorded (which moves the generation).
  await sessions.close(s.sessionId, 'logout', Date.now());
  await expect(sessions.get(s.sessionId)).resolves.toMatchObject({ closedAtMs: expect.any(Number) });
  await replay.recordIfAbsent('after-snapshot', Date.now(), Date.now() + 60_000);

  await server.restartFromSnapshot(); // loads dump.rdb: the snapshot
  await new Promise((resolve) =>
    client.status === 'ready' ? resolve(undefined) : client.once('ready', resolve),
  );
  await watch.check();
  // The loss is noticed (the replay store holds) ...
  await expect(replay.recordIfAbsent('after-snapshot', Date.now(), Date.now() + 60_000)).rejects.toThrow(
    /lost|older/,
  );
  expect(watch.problem).toMatch(/redis lost replay records/);
  // ... and the logged-out session is not open again, on either instance: every session from before the
  // loss is unknown (log in again), the one closed since and the one open throughout alike.
  const forgotten = async (id: string) => (await sessions.get(id)) === null && (await other.get(id)) === null;
  for (let i = 0; i < 50 && !(await forgotten(s.sessionId)); i++) await sleep(20);
  await expect(sessions.get(s.sessionId)).resolves.toBeNull();
  await expect(other.get(s.sessionId)).resolves.toBeNull();
  await expect(other.get(kept.sessionId)).resolves.toBeNull();
  // An administrator's list shows them ended (reason lost), not open.
  const listed = (await other.list({ offset: 0, limit: 10 })).items;
  expect(listed.find((r) => r.sessionId === kept.sessionId)).toMatchObject({
    closedAtMs: expect.any(Number),
    closeReason: 'lost',
  });
  // A session stored after the loss is served as usual.
  const fresh = sampleSessionRecord(9, { createdAtMs: Date.now(), expiresAtMs: Date.now() + 3_600_000 });
  await other.create(fresh);
  await expect(sessions.get(fresh.sessionId)).resolves.toMatchObject({
    sessionId: fresh.sessionId,
    closedAtMs: null,
  });
});

it('one loss is forgotten once per Redis run: a later call (an instance back from a pause) keeps newer sessions', async () => {
  const sessions = new RedisSessionStore(client, {});
  const before = sampleSessionRecord(10, { createdAtMs: Date.now(), expiresAtMs: Date.now() + 3_600_000 });
  await sessions.create(before);
  // Whatever an earlier test left: a flush of the key is a new dataset for this run.
  await client.del('passport:{sess}:lost-through');
  await expect(sessions.forgetBeforeLoss()).resolves.toBe(true);
  await expect(sessions.get(before.sessionId)).resolves.toBeNull();
  const after = sampleSessionRecord(11, { createdAtMs: Date.now(), expiresAtMs: Date.now() + 3_600_000 });
  await sessions.create(after);
  await expect(sessions.forgetBeforeLoss()).resolves.toBe(true);
  await expect(sessions.get(after.sessionId)).resolves.toMatchObject({ closedAtMs: null });
  // The key as a snapshot of another run brings it back (another run id, a lower line): raised again.
  const through = Number(await client.hget('passport:{sess}:lost-through', 'through'));
  await client.hset('passport:{sess}:lost-through', 'through', '0', 'run', 'another-run');
  await expect(sessions.forgetBeforeLoss()).resolves.toBe(true);
  expect(Number(await client.hget('passport:{sess}:lost-through', 'through'))).toBeGreaterThan(through);
  await expect(sessions.get(after.sessionId)).resolves.toBeNull();
});
