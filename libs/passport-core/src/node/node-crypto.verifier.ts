/**
 * @module node/node-crypto.verifier
 * The server signature lane: node:crypto (OpenSSL, ~10× faster than the portable lane) under the
 * shared policy of `crypto/ed25519-policy`, with key objects in a bounded LRU cache. Two forms:
 * on the calling thread (`createNodeVerifier`), and on libuv's thread pool
 * (`createNodeThreadPoolVerifier`), which frees the event loop during the ~0.1 ms of curve work.
 */
import { verify as cryptoVerify } from 'node:crypto';
import { passesEd25519Policy } from '../crypto/ed25519-policy.js';
import { type AsyncSignatureVerifier, type SignatureVerifier } from '../ports/signature-verifier.port.js';
import { KeyObjectLruCache } from './key-object.cache.js';
import { isBytes } from '@noble/hashes/utils.js';

export const DEFAULT_KEY_CACHE_SIZE = 1024;

export interface NodeVerifierOptions {
  /** Distinct public keys whose KeyObjects are kept (default 1024); ignored when `keyCache` is given. */
  readonly keyCacheSize?: number | undefined;
  /** A cache to share, e.g. between the two forms of the lane (a key is then built once for both). */
  readonly keyCache?: KeyObjectLruCache | undefined;
}

/**
 * The options' cache, else a new one. A `keyCache` that is no cache is refused here: its error, thrown on
 * each call, would read as a key that is no curve point, and every signature would be invalid (a probe).
 */
function keyCacheOf(opts: NodeVerifierOptions | null | undefined): KeyObjectLruCache {
  const given = opts?.keyCache ?? undefined;
  if (given === undefined) return new KeyObjectLruCache(opts?.keyCacheSize ?? DEFAULT_KEY_CACHE_SIZE);
  // A Map has `get` too, and answers undefined for every key: `capacity` tells the cache from it.
  const cache = given as Partial<KeyObjectLruCache>;
  if (typeof cache.get !== 'function' || typeof cache.capacity !== 'number')
    throw new TypeError('keyCache must be a KeyObjectLruCache');
  return given;
}

export function createNodeVerifier(opts: NodeVerifierOptions = {}): SignatureVerifier {
  const cache = keyCacheOf(opts);
  return {
    verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
      if (!isBytes(message) || !passesEd25519Policy(signature, publicKey)) return false;
      try {
        return cryptoVerify(null, message, cache.get(publicKey), signature);
      } catch {
        return false; // bytes that are not a curve point
      }
    },
  };
}

/**
 * The node lane on libuv's thread pool (`crypto.verify` with a callback): the policy pre-checks and
 * the key lookup run here, the curve arithmetic on a pool thread. On a server with a spare core this
 * roughly doubles verify throughput; the cost is a thread hand-off (~40 µs) of latency per call.
 */
export function createNodeThreadPoolVerifier(opts: NodeVerifierOptions = {}): AsyncSignatureVerifier {
  const cache = keyCacheOf(opts);
  return {
    verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): Promise<boolean> {
      if (!isBytes(message) || !passesEd25519Policy(signature, publicKey)) return Promise.resolve(false);
      let key;
      try {
        key = cache.get(publicKey);
      } catch {
        return Promise.resolve(false); // bytes that are not a curve point
      }
      return new Promise((resolve) => {
        try {
          cryptoVerify(null, message, key, signature, (error, valid) => resolve(!error && valid));
        } catch {
          resolve(false);
        }
      });
    },
  };
}
