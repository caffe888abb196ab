/**
 * One adapter family for the store ports (replay records, sessions, rate-limit buckets) plus its health
 * check, chosen by `STORE` (`sqlite`, `memory`, `redis`). Each family lives in its own file; adding one
 * is one more branch in `createStoreBackend` and nothing else changes.
 */
import { type Clock, type ReplayStore } from '@passport/core';
import { type RateLimitStore, type SessionStore } from '@passport/core/ports';
import { type AppConfig, type StoreKind } from '../config/app-config.js';
import { type HealthIndicator } from '../infrastructure/health-indicator.js';
import { createMemoryStoreBackend } from './memory.store-backend.js';
import { createSqliteStoreBackend } from './sqlite.store-backend.js';
import { createRedisStoreBackend } from './redis.store-backend.js';
import { type RedisMcpSessionDirectory } from '../../../../libs/passport-adapters/src/redis/index.js';
import { type SqliteStoreOptions } from './sqlite-store.options.js';
import { type SqliteSessionStoreOptions } from './sqlite-session.store.js';

export interface StoreBackend {
  readonly kind: StoreKind;
  readonly replay: ReplayStore;
  readonly sessions: SessionStore;
  readonly rateLimit: RateLimitStore;
  /**
   * Per-address buckets of the public routes when the family shares them between instances (Redis);
   * absent: process-local memory.
   */
  readonly publicRateLimit?: RateLimitStore;
  readonly health: HealthIndicator;
  /** The fleet-wide directory of sessioned MCP sessions, when the family is shared by instances (Redis). */
  createMcpSessionDirectory?(options: {
    maxSessions: number;
    maxSessionsPerAddress: number;
    ttlMs: number;
  }): RedisMcpSessionDirectory;
  /** Resolves when the storage can serve (bounded: a Redis that is down does not stop the start). */
  ready?(): Promise<void>;
  /** Stops background sweeps and releases the storage (idempotent). */
  close(): void;
}

/** Per-table settings; every field is optional and has a documented default in its adapter. */
export interface StoreBackendOptions {
  /** Clock of the background sweeps (request paths pass their own `nowMs`). */
  readonly clock?: Clock;
  readonly replay?: SqliteStoreOptions;
  readonly sessions?: SqliteSessionStoreOptions;
  readonly rateLimit?: SqliteStoreOptions;
  /** Milliseconds a SQLite connection waits for another's write lock (default 5000). */
  readonly busyTimeoutMs?: number;
}

export function createStoreBackend(
  config: Pick<AppConfig, 'store' | 'dataDir'> & Partial<Pick<AppConfig, 'redisUrl' | 'redisCommandTimeoutMs'>>,
  options: StoreBackendOptions = {},
): StoreBackend {
  switch (config.store) {
    case 'sqlite':
      return createSqliteStoreBackend(config.dataDir, options);
    case 'memory':
      return createMemoryStoreBackend(options);
    case 'redis':
      if (config.redisUrl === undefined) throw new Error('Invalid configuration: STORE=redis needs REDIS_URL');
      return createRedisStoreBackend({ url: config.redisUrl, commandTimeoutMs: config.redisCommandTimeoutMs }, options);
  }
}
