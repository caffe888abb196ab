/**
 * @module @passport/core/node
 * The server lane: node:crypto Ed25519 with cached key objects. Re-exports nothing from the main entry.
 */
export * from './key-object.cache.js';
export * from './node-crypto.verifier.js';
export * from './node.signer.js';
