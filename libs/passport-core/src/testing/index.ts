/**
 * @module @passport/core/testing
 * In-memory adapters of every port and a fixed clock: for tests, for embedding, and as the reference an
 * integrator compares their own adapter with. Every store is capped.
 */

// Memory adapters
export { FixedClock } from '../adapters/memory/fixed.clock.js';
export { MemoryChainReader, type MemoryChainOptions } from '../adapters/memory/memory-chain.reader.js';
export { MemoryReplayStore, type MemoryReplayStoreOptions } from '../adapters/memory/memory-replay.store.js';
export {
  MemorySessionStore,
  DEFAULT_MAX_OPEN_SESSIONS_PER_PASSPORT,
  type MemorySessionStoreOptions,
} from '../adapters/memory/memory-session.store.js';
export {
  MemoryRateLimitStore,
  type MemoryRateLimitStoreOptions,
} from '../adapters/memory/memory-rate-limit.store.js';
