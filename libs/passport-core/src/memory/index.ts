/**
 * @module @passport/core/memory
 * In-memory adapters of the core ports: `STORE=memory`, a fallback beside a shared store, embedding in
 * one process, and tests. Every store is capped (`positiveCap`); a live replay record and another
 * holder's open session are never evicted to make room.
 */
export { FixedClock } from './fixed.clock.js';
export { MemoryChainReader, type MemoryChainOptions } from './memory-chain.reader.js';
export { MemoryReplayStore, type MemoryReplayStoreOptions } from './memory-replay.store.js';
export {
  DEFAULT_MAX_OPEN_SESSIONS_PER_PASSPORT,
  MemorySessionStore,
  type MemorySessionStoreOptions,
} from './memory-session.store.js';
export { MemoryRateLimitStore, type MemoryRateLimitStoreOptions } from './memory-rate-limit.store.js';
