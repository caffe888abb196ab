/**
 * @module @passport/core/testing
 * In-memory adapters of every port and a fixed clock: for tests, for embedding, and as the reference an
 * integrator compares their own adapter with. Every store is capped.
 * The port contract suites: the behaviour every adapter of a port must show, as functions that take the
 * test framework's functions (Jest's or Vitest's) and a factory of the adapter under test; the core
 * itself depends on no test framework.
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

// Port contract suites
export type {
  ContractAdapter,
  ContractExpectation,
  ContractHarness,
  ContractMatchers,
  ContractStoreOptions,
  ContractTestApi,
} from './contracts/contract-test-api.js';
export { describeReplayStoreContract, type ReplayStoreHarness } from './contracts/replay-store.contract.js';
export {
  describeSessionStoreContract,
  type SessionStoreHarness,
  sampleSessionRecord,
} from './contracts/session-store.contract.js';
export {
  describeRateLimitStoreContract,
  type RateLimitStoreHarness,
} from './contracts/rate-limit-store.contract.js';
export {
  CHAIN_SEED,
  describeChainReaderContract,
  type ChainReaderContractAdapter,
  type ChainReaderFixture,
  type ChainSeed,
  type ChainSeedPassport,
} from './contracts/chain-reader.contract.js';
