/** The `STORE=redis` adapters of the store ports (replay records, sessions, rate-limit buckets). */
export {
  createRedisClient,
  redisClientProblem,
  redisConnectionError,
  whenConnected,
  DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
  type RedisClientOptions,
  type RedisConnection,
} from './redis-client.js';
export {
  RedisReplayStore,
  DEFAULT_REDIS_REPLAY_MAX_ENTRIES,
  DEFAULT_REDIS_CLOCK_SKEW_MARGIN_MS,
  type RedisReplayStoreOptions,
  type ReplayHistoryGuard,
} from './redis-replay.store.js';
export {
  RedisSessionStore,
  DEFAULT_REDIS_SESSION_MAX_ENTRIES,
  DEFAULT_REDIS_SESSION_CACHE_MAX_AGE_MS,
  type RedisSessionStoreOptions,
} from './redis-session.store.js';
export {
  RedisRateLimitStore,
  DEFAULT_REDIS_RATE_LIMIT_MAX_ENTRIES,
  type RedisRateLimitStoreOptions,
} from './redis-rate-limit.store.js';
export { REDIS_CLOCK_AGREEMENT_MS, CLOCK_LAG_NAMED_MS, CLOCK_LEAD_NAMED_MS } from './redis-clock-report.js';
export { FallbackRateLimitStore } from './fallback-rate-limit.store.js';
export { DEFAULT_REDIS_INVOCATION_INTERVAL_MS } from './redis-batched-script.js';
export {
  RedisMcpSessionDirectory,
  MCP_FLEET_SERVING_LEASE_MS,
  type McpAdmission,
  type RedisMcpSessionDirectoryOptions,
} from './redis-mcp-session.directory.js';
export { FleetSessionEpoch, type EpochObservation } from './fleet-session-epoch.js';
export {
  EVICTION_POLICY_NOT_READ,
  RedisEvictionWatch,
  type RedisEvictionWatchOptions,
} from './eviction-policy.watch.js';
export {
  RedisHistoryWatch,
  DEFAULT_REDIS_HISTORY_HOLD_MS,
  DEFAULT_REDIS_HISTORY_NOTICE_MS,
  HELD_READ_INTERVAL_MS,
  LOSS_TIME_TTL_MS,
  type RedisHistoryWatchOptions,
} from './redis-history.watch.js';
