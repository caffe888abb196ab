/**
 * Wall-clock steps while the app runs (an NTP step, a VM resumed, an operator fixing the date). Found by
 * a probe that ran the real app under libfaketime, stepping only the wall clock; every test here failed
 * before its fix. The wall clock is moved with a spy on Date.now (what the stores' system clock reads)
 * while monotonic time runs on as it does.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MemoryReplayStore } from '@passport/core';
import { MemoryRateLimitStore } from '@passport/core/memory';
import { createRemovalHorizon, RecordingPausedError } from '@passport/core/ports';
import { Redis } from 'ioredis';
import { FallbackRateLimitStore, RedisHistoryWatch, RedisReplayStore } from '@passport/adapters/redis';
import { McpSessionRegistry } from '../../apps/api/src/mcp/mcp-session.registry.js';
import { createMemoryStoreBackend } from '../../apps/api/src/platform/store/memory.store-backend.js';
import { createSqliteStoreBackend } from '../../apps/api/src/platform/store/sqlite.store-backend.js';
import { type StoreBackend } from '../../apps/api/src/platform/store/store-backend.types.js';
import { startRedisServer } from '../support/redis-server.js';
import { installWallClockStep, stepWallClock } from '../support/wall-clock-step.js';
import { bearer, ledgerFileOf, mintAndLogin } from '../support/passports.js';
import { startTestApp } from '../support/test-app.js';
import { HEALTH_RESULT_REUSE_MS } from '../../apps/api/src/platform/health/health.controller.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const T = 1_800_000_000_000;
/** A login challenge's record: it lives 300 s past the challenge, plus the 60 s of the future skew. */
const CHALLENGE_LIFE_MS = 360_000;

installWallClockStep();

describe('a sweep during a forward step the clock then takes back', () => {
  // Probe: a login body used, the clock stepped +10 min, the sweep ran, the clock set back: the same
  // login body got a new JWT (+25 h: the same HOLA line verified again). SQLite and memory.
  it('the core memory store with monotonic time keeps the record', async () => {
    let monotonic = 0;
    const store = new MemoryReplayStore({ monotonicNowMs: () => monotonic });
    expect((await store.recordIfAbsent('login|x|t', T, T + CHALLENGE_LIFE_MS)).recorded).toBe(true);
    monotonic += 5_000;
    expect(store.sweep(T + 10 * MINUTE)).toBe(0); // the wall clock 10 min ahead, 5 s later
    monotonic += 25_000;
    // Set back: 30 s after the login by the true time, the challenge is still fresh, and still used.
    expect((await store.recordIfAbsent('login|x|t', T + 30_000, T + CHALLENGE_LIFE_MS)).recorded).toBe(false);
    // Records go once they have expired by monotonic time too.
    monotonic += CHALLENGE_LIFE_MS;
    expect(store.sweep(T + 10 * MINUTE)).toBe(1);
  });

  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'passport-clock-step-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it.each([
    ['memory', () => createMemoryStoreBackend()],
    ['sqlite', () => createSqliteStoreBackend(dataDir)],
  ])('the %s store the server runs keeps the record', async (_, create: () => StoreBackend) => {
    const backend = create();
    try {
      const now = Date.now();
      const { replay } = backend;
      expect((await replay.recordIfAbsent('login|x|t', now, now + CHALLENGE_LIFE_MS)).recorded).toBe(true);
      // The sweep of a clock a day ahead (the SQLite store deletes a minute past expiry).
      await (replay as unknown as { sweep(nowMs: number): unknown }).sweep(now + DAY);
      expect((await replay.recordIfAbsent('login|x|t', now + 1_000, now + CHALLENGE_LIFE_MS)).recorded).toBe(
        false,
      );
    } finally {
      await backend.close();
    }
  });
});

// The SQLite store, whose rows other processes share, deletes by a horizon instead of per-record
// deadlines; its lag behind the wall clock is bounded, so a suspend cannot keep every record for good.
it('the removal horizon holds deletions back by a step, at most by its bound', () => {
  let monotonic = 0;
  const horizon = createRemovalHorizon({
    wallNowMs: () => T,
    monotonicNowMs: () => monotonic,
    maxLagMs: HOUR,
  });
  monotonic += 5_000;
  expect(horizon(T + 5_000)).toBe(T + 5_000);
  expect(horizon(T - MINUTE)).toBe(T - MINUTE); // a step back: the wall clock's earlier reading
  expect(horizon(T + 10 * MINUTE)).toBe(T + 5_000); // a step ahead: where monotonic time carried the start
  expect(horizon(T + 3 * HOUR)).toBe(T + 2 * HOUR); // never more than the bound behind
});

describe('MCP sessions go by monotonic time', () => {
  const registryOf = () =>
    new McpSessionRegistry({ maxSessions: 1, ttlMs: MINUTE, reclaimIdleMs: 10_000, sweepIntervalMs: HOUR });
  const session = {
    id: 's1',
    address: '127.0.0.1',
    transport: { close: async () => undefined },
    server: { close: async () => undefined },
  };

  // Probe: MCP_MAX_SESSIONS=2, TTL 60 s, reclaim 10 s; the clock stepped back a day: initialize
  // answered 429 with Retry-After 86394, and idle sessions were neither swept nor reclaimed.
  it('a step back does not put a full instance out of reach for the length of the step', async () => {
    const registry = registryOf();
    try {
      expect(registry.tryReserve('127.0.0.1')).toBe('admitted');
      registry.register(session as never);
      stepWallClock(-DAY);
      expect(registry.retryAfterMs('instance-full')).toBeLessThanOrEqual(10_000);
    } finally {
      await registry.closeAll();
    }
  });

  // Probe: a step ahead past the TTL ended a session used 17 s earlier (404).
  it('a step ahead does not end a session in use', async () => {
    const registry = registryOf();
    try {
      expect(registry.tryReserve('127.0.0.1')).toBe('admitted');
      registry.register(session as never);
      stepWallClock(2 * HOUR);
      expect(registry.touch('s1')).toBeDefined();
    } finally {
      await registry.closeAll();
    }
  });
});

// Probe (code): after one failed Redis take and a 1 h step back, every take for the hour stayed
// in-process (N × the limit across a fleet) and no PING was tried.
it('rate limits go back to Redis after a failure even when the clock stepped back', async () => {
  let wall = T;
  let up = false;
  let shared = 0;
  const primary = {
    take: async () => {
      if (!up) throw new Error('down');
      shared++;
      return { allowed: true, remaining: 9, retryAfterMs: 0 };
    },
    sweep: async () => 0,
  };
  const store = new FallbackRateLimitStore(primary as never, new MemoryRateLimitStore(), { now: () => wall });
  const policy = { capacity: 10, refillPerMs: 1 / 1000 };
  await store.take('k', policy, wall);
  up = true;
  wall -= HOUR;
  for (let i = 0; i < 10; i++) await store.take('k', policy, (wall += 1000));
  expect(shared).toBeGreaterThan(0);
  expect(store.fallbackSince).toBeNull();
});

// Probe: a start that found a new database in place of the old took its hold (331 s); the wall clock
// then stepped back a day: login answered 503 with Retry-After 86725 (on Redis, the stepped instance
// republished the hold for the fleet, and a second instance refused with 86381).
describe('a loss hold and a step back', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'passport-clock-hold-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('the SQLite store refuses for what is left of the hold, not for the length of the step', async () => {
    createSqliteStoreBackend(dataDir).close();
    for (const file of ['passport.db', 'passport.db-wal', 'passport.db-shm'])
      await rm(path.join(dataDir, file), { force: true });
    const holdMs = 331_000;
    const backend = createSqliteStoreBackend(dataDir, {}, holdMs);
    try {
      const retryAfterMs = async (): Promise<number> => {
        const now = Date.now();
        const error = await Promise.resolve(backend.replay.recordIfAbsent(`k${now}`, now, now + 60_000)).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(RecordingPausedError);
        return (error as RecordingPausedError).retryAfterMs;
      };
      expect(await retryAfterMs()).toBeLessThanOrEqual(holdMs);
      stepWallClock(-DAY);
      expect(await retryAfterMs()).toBeLessThanOrEqual(holdMs);
    } finally {
      backend.close();
    }
  });

  it('a Redis instance stepped back neither holds longer nor republishes the hold for longer to the fleet', async () => {
    const server = await startRedisServer();
    const client = new Redis(server.url);
    const holdMs = 331_000;
    const watch = new RedisHistoryWatch(client, { holdMs });
    try {
      const store = new RedisReplayStore(client, { clockSkewMarginMs: 0, history: watch });
      await watch.check();
      const now = Date.now();
      await store.recordIfAbsent('used', now, now + 60_000);
      await server.flush();
      await expect(store.recordIfAbsent('used', now, now + 60_000)).rejects.toBeInstanceOf(
        RecordingPausedError,
      );
      stepWallClock(-DAY);
      expect(watch.holdRemainingMs).toBeLessThanOrEqual(holdMs);
      // The shared hold gone (its key expired or deleted), this instance sets it again for what it has left.
      await client.del('passport:{replay}:loss-hold');
      await server.flush();
      await watch.check();
      const pttl = await client.pttl('passport:{replay}:loss-hold');
      expect(pttl).toBeGreaterThan(0);
      expect(pttl).toBeLessThanOrEqual(holdMs + 1_000); // Redis's own millisecond rounding
    } finally {
      watch.stop();
      client.disconnect();
      await server.stop();
    }
  });
});

// Probe: health reused its last round while "less than a second old" by the wall clock; stepped back an
// hour, a round was served for the hour (healthy over a broken ledger).
it('health checks again a second after its last round, whatever the wall clock did', async () => {
  const app = await startTestApp({ STORE: 'memory' });
  try {
    const status = async () =>
      ((await (await fetch(`${app.baseUrl}/health`)).json()) as { status: string }).status;
    expect(await status()).toBe('healthy');
    stepWallClock(-HOUR);
    await writeFile(ledgerFileOf(app), 'not a ledger');
    await new Promise((resolve) => setTimeout(resolve, HEALTH_RESULT_REUSE_MS + 100));
    expect(await status()).toBe('degraded');
  } finally {
    stepWallClock(0);
    await app.close();
  }
});

// Probe: stepped back an hour after a login, the token was not valid yet (nbf): logout answered 401
// not_yet_valid, and once the clock came back the token worked again: the session was never closed.
it('a logout after the clock stepped back closes the session', async () => {
  const app = await startTestApp({ STORE: 'memory' });
  try {
    const { jwt } = await mintAndLogin(app);
    stepWallClock(-HOUR);
    const logout = await fetch(`${app.baseUrl}/api/logout`, { method: 'POST', headers: bearer(jwt) });
    expect(logout.status).toBe(200);
    stepWallClock(0);
    const after = await fetch(`${app.baseUrl}/api/holanonce16ts`, { headers: bearer(jwt) });
    expect(after.status).toBe(401);
    expect(((await after.json()) as { error: { details: { cause: string } } }).error.details.cause).toBe(
      'session_closed',
    );
  } finally {
    stepWallClock(0);
    await app.close();
  }
});
