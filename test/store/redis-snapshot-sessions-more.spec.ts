/**
 * Sessions after Redis lost data, the cases a review of the first version found (each failed on it):
 * - a second restart from the same snapshot within the hold brings the lost-through key and every
 *   session back (the instance already holds: no second forget), so a logged-out token is accepted again;
 * - an instance cut off from Redis for the whole hold, coming back after it, notices the snapshot by its
 *   own generation key and starts a second hold, which forgets the sessions created after the first one;
 * - forgotten sessions stay in the store's index and count against SESSION_MAX_ENTRIES: after a loss,
 *   the logins that replace them are refused (503 SESSION_CAPACITY_REACHED) until they expire;
 * - a restart from a snapshot after which only a logout was made (no replay record) is not noticed at
 *   all: no hold, no lost-through, the logged-out session is open again (the commit's own scenario).
 *   Now the fleet's session epoch, which only grows, read lower than before is a loss too.
 * redis-server with RDB, snapshots taken by the test (SAVE).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { sampleSessionRecord } from '@passport/core/testing';
import {
  FleetSessionEpoch,
  RedisHistoryWatch,
  RedisRateLimitStore,
  RedisReplayStore,
  RedisSessionStore,
} from '@passport/adapters/redis';
import { freePort } from '../support/test-app.js';
import { RdbRedisServer } from '../support/rdb-redis-server.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
let port: number;
let dir: string;
const clients: Redis[] = [];
const watches: RedisHistoryWatch[] = [];

let server: RdbRedisServer;
const restartFromSnapshot = (): Promise<void> => server.restartFromSnapshot();

async function connect(): Promise<Redis> {
  const client = new Redis(port, '127.0.0.1', {
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => 50,
  });
  clients.push(client);
  await new Promise((resolve) => client.once('ready', resolve));
  return client;
}

const ready = (client: Redis): Promise<unknown> =>
  client.status === 'ready' ? Promise.resolve() : new Promise((resolve) => client.once('ready', resolve));

const hour = (n: number) =>
  sampleSessionRecord(n, { createdAtMs: Date.now(), expiresAtMs: Date.now() + 3_600_000 });

beforeEach(async () => {
  port = await freePort();
  dir = mkdtempSync(join(tmpdir(), 'passport-loss-rdb-'));
  server = new RdbRedisServer(port, dir);
  await server.start();
});
afterEach(async () => {
  for (const w of watches.splice(0)) w.stop();
  for (const c of clients.splice(0)) c.disconnect();
  await server.kill();
  rmSync(dir, { recursive: true, force: true });
});

it('a second restart from the same snapshot within the hold does not undo a logout', async () => {
  const client = await connect();
  const watch = new RedisHistoryWatch(client, { holdMs: 60_000, intervalMs: 100 });
  watches.push(watch);
  const replay = new RedisReplayStore(client, { history: watch });
  const sessions = new RedisSessionStore(client, { history: watch });
  await watch.check();
  await replay.recordIfAbsent('a', Date.now(), Date.now() + 60_000);
  const s = hour(1);
  await sessions.create(s);
  await client.save();
  await sessions.close(s.sessionId, 'logout', Date.now());
  await replay.recordIfAbsent('b', Date.now(), Date.now() + 60_000);

  await restartFromSnapshot();
  await ready(client);
  await watch.check();
  for (let i = 0; i < 50 && (await client.hget('passport:{sess}:lost-through', 'through')) === null; i++)
    await sleep(20);
  await expect(sessions.get(s.sessionId)).resolves.toBeNull();

  // Redis crashes again within the hold, and comes back from the same snapshot file.
  await restartFromSnapshot();
  await ready(client);
  await watch.check();
  await sleep(500);
  expect(watch.holdRemainingMs).toBeGreaterThan(0);
  await expect(sessions.get(s.sessionId)).resolves.toBeNull();
});

it('an instance cut off for the whole hold does not forget the sessions created after it', async () => {
  const a = await connect();
  const b = await connect();
  const holdMs = 1500;
  const watchA = new RedisHistoryWatch(a, { holdMs, intervalMs: 100 });
  const watchB = new RedisHistoryWatch(b, { holdMs, intervalMs: 100 });
  watches.push(watchA, watchB);
  const replayA = new RedisReplayStore(a, { history: watchA });
  const replayB = new RedisReplayStore(b, { history: watchB });
  const sessionsA = new RedisSessionStore(a, { history: watchA });
  new RedisSessionStore(b, { history: watchB });
  await watchA.check();
  await watchB.check();
  await replayA.recordIfAbsent('a1', Date.now(), Date.now() + 60_000);
  await replayB.recordIfAbsent('b1', Date.now(), Date.now() + 60_000);
  await a.save();
  await replayA.recordIfAbsent('a2', Date.now(), Date.now() + 60_000);
  await replayB.recordIfAbsent('b2', Date.now(), Date.now() + 60_000); // B's own key moves past the snapshot

  b.disconnect(); // B is cut off (a partition, a pause) from before the restart until after the hold
  await restartFromSnapshot();
  await ready(a);
  await watchA.check();
  expect(watchA.holdRemainingMs).toBeGreaterThan(0);
  await sleep(holdMs + 300);
  expect(watchA.holdRemainingMs).toBe(0);
  // After the hold: logins are recorded again, a session is created.
  await replayA.recordIfAbsent('after-hold', Date.now(), Date.now() + 60_000);
  const fresh = hour(2);
  await sessionsA.create(fresh);
  await expect(sessionsA.get(fresh.sessionId)).resolves.toMatchObject({ closedAtMs: null });

  // B comes back.
  await b.connect();
  await ready(b);
  await watchB.check();
  await sleep(300);
  await expect(sessionsA.get(fresh.sessionId)).resolves.toMatchObject({ closedAtMs: null });
});

it('sessions forgotten after a loss do not keep the logins that replace them out (SESSION_MAX_ENTRIES)', async () => {
  const client = await connect();
  const sessions = new RedisSessionStore(client, { maxEntries: 3 });
  for (const n of [1, 2, 3]) await sessions.create(hour(n));
  await expect(sessions.forgetBeforeLoss()).resolves.toBe(true);
  for (const n of [1, 2, 3]) await expect(sessions.get(hour(n).sessionId)).resolves.toBeNull();
  await sessions.sweep(Date.now());
  // Every agent logs in again: the forgotten sessions were closed (lost), and swept.
  await expect(sessions.create(hour(4))).resolves.toBeUndefined();
  expect((await sessions.list({ offset: 0, limit: 10 })).items.map((r) => r.sessionId)).toEqual([
    hour(4).sessionId,
  ]);
});

it('a logout made after the snapshot stays in force when no replay record was made since the snapshot', async () => {
  const client = await connect();
  const watch = new RedisHistoryWatch(client, { holdMs: 60_000, intervalMs: 100 });
  watches.push(watch);
  // As the app wires them: every request's public rate-limit take reads the fleet's session epoch.
  const epoch = new FleetSessionEpoch();
  epoch.onWentBack(() => watch.sessionEpochWentBack());
  const publicLimit = new RedisRateLimitStore(client, { namespace: 'public', sessionEpoch: epoch });
  const take = () =>
    publicLimit.take('127.0.0.1', { capacity: 1000, refillPerMs: 1 }, Date.now()).catch(() => undefined);
  const replay = new RedisReplayStore(client, { history: watch });
  const sessions = new RedisSessionStore(client, { history: watch, epoch });
  await watch.check();
  await replay.recordIfAbsent('login-challenge', Date.now(), Date.now() + 60_000);
  const s = hour(1);
  await sessions.create(s);
  await take();
  await client.save();
  // Only a logout after the snapshot (no HOLA verified, no login): the replay records are all there.
  await sessions.close(s.sessionId, 'logout', Date.now());
  await take();
  await restartFromSnapshot();
  await ready(client);
  await watch.check();
  for (let i = 0; i < 50 && watch.holdRemainingMs === 0; i++) {
    await take();
    await sleep(20);
  }
  expect(watch.holdRemainingMs).toBeGreaterThan(0);
  for (let i = 0; i < 50 && (await sessions.get(s.sessionId)) !== null; i++) await sleep(20);
  await expect(sessions.get(s.sessionId)).resolves.toBeNull();
});
