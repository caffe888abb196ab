/**
 * @module @passport/adapters/near
 * The NEAR JSON-RPC ChainReader. Loads near-api-js (an optional peer dependency): import this subpath
 * only where a NEAR chain is read.
 */
export * from './near-chain.reader.js';
