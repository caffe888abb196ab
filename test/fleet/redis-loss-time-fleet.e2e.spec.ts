/**
 * A Redis loss's time across a fleet, over real HTTP against real app instances on one real
 * redis-server (STORE=redis, a short REDIS_LOSS_HOLD_MS). A FLUSHALL is noticed by instance A; C starts
 * during the hold (it adopts it), B only after the hold ended (it learns the loss from `lost-at`).
 * Found by probes (1.11.0): B accepted a line used before the loss when asked with a 24 h window, and C
 * took its own start as the loss's time, so it answered a line stamped between the loss and its start
 * `nonce_replay`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { mintPassport, newKey, type TestKey } from '../support/passports.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { freePort, startTestApp, type TestApp } from '../support/test-app.js';
import { holaLine } from '../verify/hola-lines.js';
import { Redis } from 'ioredis';

const HOLD_MS = 4000;
const DAY_MS = 86_400_000;

let redis: RedisServer;
let dataDir: string;
let publicPort: number;
let a: TestApp;
let b: TestApp;
let c: TestApp;
let key: TestKey;
let tokenId: string;
/** Verified on A before the loss. */
let usedBefore: string;
/** Stamped after A noticed the loss and before C started; never verified before the hold ended. */
let stampedAfterLoss: string;

const startInstance = async (): Promise<TestApp> =>
  startTestApp({
    STORE: 'redis',
    REDIS_URL: redis.url,
    REDIS_COMMAND_TIMEOUT_MS: '1000',
    REDIS_LOSS_HOLD_MS: String(HOLD_MS),
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    PUBLIC_BASE_URL: `http://127.0.0.1:${publicPort}`,
  });

const verify = async (app: TestApp, hola: string, maxAgeMs = DAY_MS) => {
  const res = await fetch(`${app.baseUrl}/api/identity/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ hola, constraints: { maxAgeMs } }),
  });
  return { status: res.status, body: (await res.json()) as any };
};
const health = async (app: TestApp) => (await (await fetch(`${app.baseUrl}/health`)).json()) as any;
// Every line names the fleet's PUBLIC_BASE_URL (A's), whichever instance it is sent to.
const line = () => holaLine(a, { sender: tokenId, signer: key.signer });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(predicate: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`not reached in ${timeoutMs} ms: ${what}`);
    await sleep(100);
  }
}

/** The hold has ended on `app` when a fresh line verifies there (throwaway lines, one per poll). */
const holdEnded = (app: TestApp) => async () => (await verify(app, line())).status !== 503;

beforeAll(async () => {
  redis = await startRedisServer();
  dataDir = await mkdtemp(path.join(tmpdir(), 'passport-loss-time-'));
  publicPort = await freePort();
  a = await startTestApp({
    STORE: 'redis',
    REDIS_URL: redis.url,
    REDIS_COMMAND_TIMEOUT_MS: '1000',
    REDIS_LOSS_HOLD_MS: String(HOLD_MS),
    DATA_DIR: dataDir,
    PORT: String(publicPort),
    PUBLIC_BASE_URL: `http://127.0.0.1:${publicPort}`,
  });
  key = newKey();
  ({ tokenId } = await mintPassport(a, { owner: key }));

  usedBefore = line();
  expect((await verify(a, usedBefore)).body.verified).toBe(true);

  await redis.flush();
  // A's next record invocation finds the marker gone: the hold starts there (verify answers 503).
  await waitFor(async () => (await verify(a, line())).status === 503, 5000, 'A notices the flush');
  // Stamped clearly after the loss's time (HOLA_FUTURE_SKEW_MS is 0 here; C reads the loss's time from
  // the hold's time to live, later by however long its reply waited), and before C starts (C's own start
  // was taken as the loss's time before 1.11.0). In a later second than the loss: freshness counts whole
  // seconds, so a line stamped within the loss's own second may have been accepted before it (and is
  // answered nonce_replay).
  await sleep(1100);
  stampedAfterLoss = line();
  await sleep(100);
  c = await startInstance();
  // C started during the hold: it adopted it (else the case below proves nothing).
  const cHeld = await health(c);
  expect([cHeld.status, cHeld.checks.store.problem]).toEqual([
    'degraded',
    expect.stringContaining('redis lost replay records'),
  ]);

  await waitFor(holdEnded(a), HOLD_MS + 5000, 'the hold ends on A');
  await waitFor(holdEnded(c), 5000, 'the hold ends on C');
  // B starts only after the hold ended everywhere (the hold key is gone from Redis too).
  const client = new Redis(redis.port, '127.0.0.1', { maxRetriesPerRequest: 0 });
  try {
    await waitFor(
      async () => (await client.pttl('passport:{replay}:loss-hold')) === -2,
      5000,
      'the hold key expired',
    );
  } finally {
    client.disconnect();
  }
  b = await startInstance();
}, 30_000);

afterAll(async () => {
  await a?.close();
  await b?.close();
  await c?.close();
  await redis?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('a Redis loss known to every instance of the fleet, after its hold', () => {
  it('a line verified before the loss is nonce_replay (no firstSeenAt) on B, started after the hold, with a 24 h window; on A and C too', async () => {
    for (const [name, app] of [
      ['B', b],
      ['A', a],
      ['C', c],
    ] as const) {
      const late = await verify(app, usedBefore);
      expect([name, late.status, late.body.verified, late.body.failureReasons]).toEqual([
        name,
        200,
        false,
        ['nonce_replay'],
      ]);
      expect([name, late.body.nonceReplayDetails?.firstSeenAt]).toEqual([name, undefined]);
    }
  });

  it('a line stamped after the loss was noticed, never verified, verifies on C (started during the hold); then it is a replay everywhere', async () => {
    const first = await verify(c, stampedAfterLoss);
    expect([first.status, first.body.verified, first.body.failureReasons]).toEqual([200, true, []]);
    for (const app of [a, b, c]) {
      const again = await verify(app, stampedAfterLoss);
      expect([again.body.verified, again.body.failureReasons]).toEqual([false, ['nonce_replay']]);
      expect(again.body.nonceReplayDetails.firstSeenAt).toEqual(expect.any(String));
    }
  });

  it('a fresh line verifies on each instance, and a second ask on any instance is nonce_replay', async () => {
    for (const first of [a, b, c]) {
      const fresh = line();
      expect((await verify(first, fresh)).body.verified).toBe(true);
      for (const app of [a, b, c]) {
        const again = await verify(app, fresh);
        expect([again.body.verified, again.body.failureReasons]).toEqual([false, ['nonce_replay']]);
      }
    }
  });

  it('health on B notes the loss (healthy, with a note), as on A and C', async () => {
    for (const [name, app] of [
      ['B', b],
      ['A', a],
      ['C', c],
    ] as const) {
      const report = await health(app);
      expect([name, report.checks.store.note]).toEqual([
        name,
        expect.stringContaining('redis lost replay records'),
      ]);
      expect([name, report.status, report.checks.store.problem]).toEqual([name, 'healthy', undefined]);
    }
  });
});
