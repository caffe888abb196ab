/**
 * @module @passport/core/node
 * The server lane: node:crypto Ed25519 with cached key objects (also on libuv's thread pool). The only
 * part of the package that imports `node:` modules; it re-exports nothing from the main entry.
 */

// Signer and verifiers
export { createNodeSigner } from './node.signer.js';
export {
  createNodeVerifier,
  createNodeThreadPoolVerifier,
  DEFAULT_KEY_CACHE_SIZE,
  type NodeVerifierOptions,
} from './node-crypto.verifier.js';
export { KeyObjectLruCache, ed25519KeyObject } from './key-object.cache.js';
