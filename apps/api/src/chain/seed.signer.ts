/**
 * Signer of a 32-byte Ed25519 seed, for the server and family-root keys.
 * Temporary bridge: the core's node lane (`createNodeSigner` in `@passport/core/node`, worker A) replaces
 * it as soon as it is exported; until then @noble/curves signs (same bytes: Ed25519 is deterministic).
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { type Signer } from '@passport/core';

export function seedSigner(seed32: Uint8Array): Signer {
  if (seed32.length !== 32) throw new RangeError('An Ed25519 seed has 32 bytes.');
  const seed = Uint8Array.from(seed32);
  return { publicKey: ed25519.getPublicKey(seed), sign: (message) => ed25519.sign(message, seed) };
}
