/**
 * @module codecs/base58.codec
 * Bitcoin-alphabet base58 (NEAR keys, DID `publicKeyBase58`), via the bs58 package.
 */
import bs58 from 'bs58';

export function encodeBase58(bytes: Uint8Array): string {
  return bs58.encode(bytes);
}

/** null for text outside the base58 alphabet. */
export function decodeBase58(text: string): Uint8Array | null {
  const decoded = bs58.decodeUnsafe(text);
  return decoded ? Uint8Array.from(decoded) : null;
}
