/**
 * @module @passport/adapters/caching
 * A ChainReader decorator with a short cache and request coalescing, over any ChainReader, and the
 * mark of chain reads that may use a reader's reserved budget. Needs the core only.
 */
export * from './caching-chain.reader.js';
export * from './reserved-chain-reads.js';
