/**
 * StoreModule wiring: `STORE` picks the adapter family, the four tokens resolve to it, the health
 * indicator reports a real check, and closing the app closes the database (the file can then be
 * reopened and still holds what was written).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test, type TestingModule } from '@nestjs/testing';
import { MemoryReplayStore, type ReplayStore } from '@passport/core';
import { type RateLimitStore, type SessionStore } from '@passport/core/ports';
import { loadConfig } from '../../apps/api/src/platform/config/app-config.js';
import { ConfigModule } from '../../apps/api/src/platform/config/config.module.js';
import {
  PUBLIC_RATE_LIMIT_STORE,
  RATE_LIMIT_STORE,
  REPLAY_STORE,
  SESSION_STORE,
  STORE_HEALTH_INDICATOR,
} from '../../apps/api/src/platform/infrastructure/di-tokens.js';
import { type HealthIndicator } from '../../apps/api/src/platform/infrastructure/health-indicator.js';
import { OperatorMetrics } from '../../apps/api/src/platform/metrics/operator-metrics.js';
import { StoreModule } from '../../apps/api/src/platform/store/store.module.js';
import { SqliteReplayStore, SqliteDatabase } from '@passport/adapters/sqlite';
import { FallbackRateLimitStore, RedisReplayStore } from '@passport/adapters/redis';
import { startRedisServer } from '../support/redis-server.js';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'passport-store-module-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

async function compile(env: Record<string, string>): Promise<TestingModule> {
  const module = await Test.createTestingModule({
    imports: [ConfigModule.forRoot(loadConfig({ DATA_DIR: dataDir, ...env })), StoreModule],
  }).compile();
  await module.init();
  return module;
}

describe('StoreModule', () => {
  it('STORE=redis provides the Redis adapters, shared per-address buckets and a healthy indicator', async () => {
    const redis = await startRedisServer();
    try {
      const module = await compile({ STORE: 'redis', REDIS_URL: redis.url });
      try {
        expect(module.get<ReplayStore>(REPLAY_STORE)).toBeInstanceOf(RedisReplayStore);
        expect(module.get(PUBLIC_RATE_LIMIT_STORE)).toBeInstanceOf(FallbackRateLimitStore);
        const health = module.get<HealthIndicator>(STORE_HEALTH_INDICATOR);
        await expect(health.check()).resolves.toMatchObject({
          ok: true,
          detail: { adapter: 'redis', rateLimits: 'shared' },
        });
      } finally {
        await module.close();
      }
    } finally {
      await redis.stop();
    }
  });

  it('STORE=memory provides the core memory adapters and a healthy indicator', async () => {
    const module = await compile({ STORE: 'memory' });
    expect(module.get<ReplayStore>(REPLAY_STORE)).toBeInstanceOf(MemoryReplayStore);
    const health = module.get<HealthIndicator>(STORE_HEALTH_INDICATOR);
    expect(health.name).toBe('store');
    await expect(health.check()).resolves.toEqual({
      ok: true,
      detail: {
        adapter: 'memory',
        replay: { records: 0, maxRecords: 100_000, refusedFull: 0, refusedQuota: 0 },
      },
    });
    await module.close();
  });

  it('STORE=sqlite (the default) persists in DATA_DIR/passport.db, and closing the app closes the database', async () => {
    const module = await compile({});
    const replay = module.get<ReplayStore>(REPLAY_STORE);
    expect(replay).toBeInstanceOf(SqliteReplayStore);
    const sessions = module.get<SessionStore>(SESSION_STORE);
    const rateLimit = module.get<RateLimitStore>(RATE_LIMIT_STORE);
    const health = module.get<HealthIndicator>(STORE_HEALTH_INDICATOR);

    await expect(replay.recordIfAbsent('abcdefghijkl|00FF', 1000, 61_000)).resolves.toEqual({
      recorded: true,
    });
    await sessions.create({
      sessionId: 'sess_abcdefghijkl_01J',
      tokenId: 'abcdefghijkl',
      ownerId: 'alice.near',
      jti: 'j1',
      createdAtMs: 1000,
      expiresAtMs: 3_601_000,
      closedAtMs: null,
      closeReason: null,
      federatedFrom: null,
    });
    await expect(rateLimit.take('1.2.3.4', { capacity: 2, refillPerMs: 0.001 }, 1000)).resolves.toEqual({
      allowed: true,
      remaining: 1,
      retryAfterMs: 0,
    });
    const healthy = await health.check();
    expect(healthy.ok).toBe(true);
    expect(healthy.detail).toMatchObject({ adapter: 'sqlite', latencyMs: expect.any(Number) });

    await module.close();
    const afterClose = await health.check();
    expect(afterClose.ok).toBe(false);
    expect(afterClose.detail).toMatchObject({ adapter: 'sqlite' });
    await expect(replay.recordIfAbsent('x|1', 1, 2)).rejects.toMatchObject({
      message: expect.stringMatching(/not open/),
    });

    const reopened = SqliteDatabase.openInDataDir(dataDir);
    try {
      expect(reopened.journalMode()).toBe('wal');
      expect(reopened.rowCount('replay_records')).toBe(1);
      expect(reopened.rowCount('sessions')).toBe(1);
      expect(reopened.rowCount('rate_buckets')).toBe(1);
    } finally {
      reopened.close();
    }
  });

  it('counts each failing store operation for the operators (passport_store_errors_total) and rethrows it', async () => {
    const module = await Test.createTestingModule({
      imports: [ConfigModule.forRoot(loadConfig({ DATA_DIR: dataDir })), StoreModule],
    }).compile();
    await module.init();
    const metrics = module.get(OperatorMetrics);
    const replay = module.get<ReplayStore>(REPLAY_STORE);
    const sessions = module.get<SessionStore>(SESSION_STORE);
    await expect(replay.recordIfAbsent('abcdefghijkl|00AA', 1000, 61_000)).resolves.toEqual({
      recorded: true,
    });
    await module.close(); // the real database is closed: every operation now fails
    await expect(replay.recordIfAbsent('x|1', 1, 2)).rejects.toThrow(/not open/);
    await expect(replay.recordIfAbsent('x|2', 1, 2)).rejects.toThrow(/not open/);
    await expect(sessions.countOpen(1)).rejects.toThrow(/not open/);
    const text = await metrics.text();
    expect(text).toMatch(/^passport_store_errors_total\{store="replay",operation="recordIfAbsent"\} 2$/m);
    expect(text).toMatch(/^passport_store_errors_total\{store="sessions",operation="countOpen"\} 1$/m);
    expect(text).not.toMatch(/^passport_store_errors_total\{store="rate_limit"/m);
  });
});
