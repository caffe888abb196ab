/**
 * @module @passport/core/testing
 * The port contract suites: the behaviour every adapter of a port must show, as functions that take the
 * test framework's functions (Jest's or Vitest's) and a factory of the adapter under test; the core
 * itself depends on no test framework. Also `FixedClock`, and the in-memory adapters, which are the
 * reference an integrator compares their own adapter with (their home is `@passport/core/memory`;
 * they stay exported here for code that imported them from this subpath).
 */

// A clock tests set by hand, and the in-memory adapters (also @passport/core/memory)
export { FixedClock } from '../memory/fixed.clock.js';
export { MemoryChainReader, type MemoryChainOptions } from '../memory/memory-chain.reader.js';
export { MemoryReplayStore, type MemoryReplayStoreOptions } from '../memory/memory-replay.store.js';
export {
  MemorySessionStore,
  DEFAULT_MAX_OPEN_SESSIONS_PER_PASSPORT,
  type MemorySessionStoreOptions,
} from '../memory/memory-session.store.js';
export { MemoryRateLimitStore, type MemoryRateLimitStoreOptions } from '../memory/memory-rate-limit.store.js';

// Port contract suites
export type {
  ContractAdapter,
  ContractExpectation,
  ContractHarness,
  ContractMatchers,
  ContractStoreOptions,
  ContractTestApi,
} from './contracts/contract-test-api.js';
export { singleProcessHarness } from './contracts/contract-test-api.js';
export { describeReplayStoreContract, type ReplayStoreHarness } from './contracts/replay-store.contract.js';
export {
  describeSessionStoreContract,
  type SessionStoreHarness,
  sampleSessionRecord,
} from './contracts/session-store.contract.js';
export {
  describeLoginRecorderContract,
  type LoginRecorderAdapter,
  type LoginRecorderHarness,
} from './contracts/login-recorder.contract.js';
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
