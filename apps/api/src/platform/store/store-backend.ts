/**
 * One adapter family for the store ports (replay records, sessions, rate-limit buckets) plus its health
 * check, chosen by `STORE` (`sqlite`, `memory`, `redis`). Each family lives in its own file; adding one
 * is one more branch in `createStoreBackend` and nothing else changes.
 */
import { type AppConfig } from '../config/app-config.js';
import { createMemoryStoreBackend } from './memory.store-backend.js';
import { createSqliteStoreBackend } from './sqlite.store-backend.js';
import { createRedisStoreBackend } from './redis.store-backend.js';
import { type StoreBackend, type StoreBackendOptions } from './store-backend.types.js';

export type { StoreBackend, StoreBackendOptions } from './store-backend.types.js';

export function createStoreBackend(
  config: Pick<AppConfig, 'store' | 'dataDir'> &
    Partial<Pick<AppConfig, 'redisUrl' | 'redisCommandTimeoutMs' | 'redisLossHoldMs' | 'sqliteLossHoldMs'>>,
  options: StoreBackendOptions = {},
): StoreBackend {
  switch (config.store) {
    case 'sqlite':
      return createSqliteStoreBackend(config.dataDir, options, config.sqliteLossHoldMs);
    case 'memory':
      return createMemoryStoreBackend(options);
    case 'redis':
      if (config.redisUrl === undefined)
        throw new Error('Invalid configuration: STORE=redis needs REDIS_URL');
      return createRedisStoreBackend(
        {
          url: config.redisUrl,
          commandTimeoutMs: config.redisCommandTimeoutMs,
          lossHoldMs: config.redisLossHoldMs,
        },
        options,
      );
  }
}
