/**
 * @module adapters/memory
 * In-memory adapters of the core ports (tests, embedding, `STORE=memory`). Every store is capped.
 */
export * from './fixed.clock.js';
export * from './memory-chain.reader.js';
export * from './memory-replay.store.js';
export * from './memory-session.store.js';
export * from './memory-rate-limit.store.js';
