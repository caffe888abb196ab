/**
 * @module credentials/near-key-text
 * NEAR's text form of an Ed25519 public key, `ed25519:<base58 of 32 bytes>` (access key lists, the
 * ledger's named accounts, credential files).
 */
import { decodeBase58, encodeBase58 } from '../codecs/base58.codec.js';

const PREFIX = 'ed25519:';

export function formatNearPublicKey(publicKey: Uint8Array): string {
  if (publicKey.length !== 32) throw new RangeError('An Ed25519 public key has 32 bytes.');
  return PREFIX + encodeBase58(publicKey);
}

/** The 32 key bytes; null for any other curve prefix, bad base58 or length. */
export function parseNearPublicKey(text: unknown): Uint8Array | null {
  if (typeof text !== 'string' || !text.startsWith(PREFIX)) return null;
  const bytes = decodeBase58(text.slice(PREFIX.length));
  return bytes && bytes.length === 32 ? bytes : null;
}
