/**
 * @module @passport/adapters/caching
 * A ChainReader decorator with a short cache and request coalescing, over any ChainReader. Needs the
 * core only.
 */
export * from './caching-chain.reader.js';
