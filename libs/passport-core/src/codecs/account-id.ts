/**
 * @module codecs/account-id
 * NEAR account ids (docs/protocol.md §1). An implicit account id is the 64 lowercase hex characters of its
 * Ed25519 public key, so its key needs no chain lookup; any other id is a named account whose keys
 * the chain port resolves.
 */
import { decodeHex, encodeHex } from './hex.codec.js';

const IMPLICIT_ACCOUNT_PATTERN = /^[0-9a-f]{64}$/;

/** True for a 64-lowercase-hex implicit account id (uppercase hex is not an account id on NEAR). */
export function isImplicitAccountId(value: unknown): value is string {
  return typeof value === 'string' && IMPLICIT_ACCOUNT_PATTERN.test(value);
}

/** The implicit account id of a 32-byte Ed25519 public key. */
export function implicitAccountId(publicKey: Uint8Array): string {
  if (publicKey.length !== 32) throw new RangeError('An Ed25519 public key has 32 bytes.');
  return encodeHex(publicKey);
}

/** The public key an implicit account id encodes; null for anything that is not an implicit id. */
export function publicKeyOfImplicitAccount(id: string): Uint8Array | null {
  return isImplicitAccountId(id) ? decodeHex(id) : null;
}
