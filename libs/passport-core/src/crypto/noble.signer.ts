/**
 * @module crypto/noble.signer
 * Portable Ed25519 signing (@noble/curves) from a 32-byte seed, the secret half of a NEAR key.
 * RFC 8032 signing is deterministic, so this signer and the node one produce identical signatures.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { type Signer } from '../ports/signature-verifier.port.js';
import { isBytes } from '@noble/hashes/utils.js';
import { assertEd25519Seed as assertSeed } from './ed25519-seed.js';

/** The 32-byte public key of a seed. */
export function publicKeyFromSeed(seed32: Uint8Array): Uint8Array {
  assertSeed(seed32);
  return ed25519.getPublicKey(seed32);
}

export function createNobleSigner(seed32: Uint8Array): Signer {
  assertSeed(seed32);
  const seed = Uint8Array.from(seed32); // the caller may wipe or reuse its buffer
  const publicKey = ed25519.getPublicKey(seed);
  return {
    // A copy each read: a caller's edit of what it was given must not change what the signer reports.
    get publicKey() {
      return publicKey.slice();
    },
    sign: (message: Uint8Array) => {
      if (!isBytes(message)) throw new TypeError('the message to sign must be a Uint8Array');
      return ed25519.sign(message, seed);
    },
  };
}
