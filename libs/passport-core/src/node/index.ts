/**
 * @module @passport/core/node
 * The server lane: node:crypto Ed25519 with cached key objects. Re-exports nothing from the main entry.
 */
export {};
