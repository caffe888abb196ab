/**
 * @module codecs/base58.codec
 * Bitcoin-alphabet base58 (NEAR keys, DID `publicKeyBase58`), via the bs58 package.
 */
import bs58 from 'bs58';

/**
 * The longest text `decodeBase58` reads: 128 characters hold 93 bytes, more than any key, seed or
 * signature here (64 bytes at most, 88 characters). base58 decoding takes time quadratic in the length
 * (2.4 s for 50k characters, measured), and a NEAR node's answer carries key text of any length.
 */
export const BASE58_MAX_LENGTH = 128;

export function encodeBase58(bytes: Uint8Array): string {
  return bs58.encode(bytes);
}

/** null for text outside the base58 alphabet or longer than `BASE58_MAX_LENGTH`. */
export function decodeBase58(text: string): Uint8Array | null {
  if (typeof text !== 'string' || text.length > BASE58_MAX_LENGTH) return null;
  const decoded = bs58.decodeUnsafe(text);
  return decoded ? Uint8Array.from(decoded) : null;
}
