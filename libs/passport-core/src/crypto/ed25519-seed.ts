/**
 * @module crypto/ed25519-seed
 * The one check of a signer's seed, shared by both lanes: 32 bytes. A NEAR key file's `private_key` is 64
 * bytes (the seed, then the public key), and an integrator who passed those bytes read only "an Ed25519
 * seed is 32 bytes" (a walkthrough): the message names the seed to pass. The 64 bytes are refused, not
 * taken for their first half: unchecked against the public key they carry, a wrong key file would sign.
 */
import { isBytes } from '@noble/hashes/utils.js';

export function assertEd25519Seed(seed32: unknown): asserts seed32 is Uint8Array {
  if (isBytes(seed32) && seed32.length === 32) return;
  if (isBytes(seed32) && seed32.length === 64)
    throw new RangeError(
      'an Ed25519 seed is 32 bytes, not 64: a NEAR private key (64 bytes) is the seed then the public key; pass parseNearCredentials(text).secretSeed',
    );
  const got = isBytes(seed32) ? `${seed32.length} bytes` : seed32 === null ? 'null' : typeof seed32;
  throw new RangeError(
    `an Ed25519 seed is a Uint8Array of 32 bytes (got ${got}); of a key file: parseNearCredentials(text).secretSeed`,
  );
}
