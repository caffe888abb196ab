/**
 * Dependency-injection tokens for the core's ports and the app's shared services. The core's ports are
 * TypeScript interfaces (erased at run time), so each gets a Symbol token; adapters are bound to these
 * by the module of their family (chain/chain.module.ts, store/store.module.ts), chosen by configuration.
 */
export const APP_CONFIG = Symbol('APP_CONFIG');
export const CLOCK = Symbol('CLOCK');
export const CHAIN_READER = Symbol('CHAIN_READER');
/**
 * The chain reader's cache (the object CHAIN_READER gives): how long it keeps a record (`ttlMs`, which
 * caches derived from records must not outlive) and its counters (`stats`). Optional where injected: a
 * reader without a cache gives no reuse and no counters.
 */
export const CHAIN_CACHE = Symbol('CHAIN_CACHE');
export const REPLAY_STORE = Symbol('REPLAY_STORE');
export const SESSION_STORE = Symbol('SESSION_STORE');
/** The login's two writes (used challenge, session) as one step (LoginRecorder port). */
export const LOGIN_RECORDER = Symbol('LOGIN_RECORDER');
/** Token buckets of per-passport quotas (max_requests per maxrq_window): the configured store, persistent. */
export const RATE_LIMIT_STORE = Symbol('RATE_LIMIT_STORE');
/**
 * Token buckets of the per-client-address limits (public routes, /mcp): shared by the fleet in Redis with
 * STORE=redis (one script round trip per request), otherwise process-local memory (they run on every
 * public request, where a SQLite commit each halved throughput, and a restart losing them costs nothing).
 */
export const PUBLIC_RATE_LIMIT_STORE = Symbol('PUBLIC_RATE_LIMIT_STORE');
export const SIGNATURE_VERIFIER = Symbol('SIGNATURE_VERIFIER');
/** The same lane on libuv's thread pool (`AsyncSignatureVerifier`), for HOLA lines. */
export const ASYNC_SIGNATURE_VERIFIER = Symbol('ASYNC_SIGNATURE_VERIFIER');
/** The server's own passport and key (see server-identity.ts). */
export const SERVER_IDENTITY = Symbol('SERVER_IDENTITY');
/** HealthIndicator of the chain adapter family (provided by chain/chain.module.ts). */
export const CHAIN_HEALTH_INDICATOR = Symbol('CHAIN_HEALTH_INDICATOR');
/** HealthIndicator of the store adapter family (provided by store/store.module.ts). */
export const STORE_HEALTH_INDICATOR = Symbol('STORE_HEALTH_INDICATOR');
/**
 * `readonly string[]` of trusted contract ids, resolved by chain/chain.module.ts: TRUSTED_CONTRACTS when
 * set, otherwise the configured chain's own contract (for the ledger, its `contractId`; docs/protocol.md §9).
 */
export const TRUSTED_CONTRACTS = Symbol('TRUSTED_CONTRACTS');
/** The fleet-wide directory of sessioned MCP sessions (STORE=redis), or null: sessions live in their instance. */
export const MCP_FLEET_SESSIONS = Symbol('MCP_FLEET_SESSIONS');
