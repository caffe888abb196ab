/**
 * @module node/node-crypto.verifier
 * The server signature lane: node:crypto (OpenSSL, ~10× faster than the portable lane) under the
 * shared policy of `crypto/ed25519-policy`, with key objects in a bounded LRU cache.
 */
import { verify as cryptoVerify } from 'node:crypto';
import { passesEd25519Policy } from '../crypto/ed25519-policy.js';
import { type SignatureVerifier } from '../ports/signature-verifier.port.js';
import { KeyObjectLruCache } from './key-object.cache.js';

export const DEFAULT_KEY_CACHE_SIZE = 1024;

export function createNodeVerifier(opts: { keyCacheSize?: number } = {}): SignatureVerifier {
  const cache = new KeyObjectLruCache(opts.keyCacheSize ?? DEFAULT_KEY_CACHE_SIZE);
  return {
    verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
      if (!(message instanceof Uint8Array) || !passesEd25519Policy(signature, publicKey)) return false;
      try {
        return cryptoVerify(null, message, cache.get(publicKey), signature);
      } catch {
        return false; // bytes that are not a curve point
      }
    },
  };
}
