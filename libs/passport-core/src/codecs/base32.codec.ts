/**
 * @module codecs/base32.codec
 * RFC 4648 §6 base32 (alphabet A-Z2-7). HOLA signatures and subagent keys use it: no padding is
 * emitted, trailing `=` is tolerated on input (docs/protocol.md §2). Input must be uppercase (HOLA lines
 * are uppercased before parsing).
 */
import { withoutTrailing } from './trailing.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const LOOKUP: Int8Array = (() => {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < ALPHABET.length; i++) table[ALPHABET.charCodeAt(i)] = i;
  return table;
})();

/** The 5-bit value of the character at `i`, or -1 outside the alphabet. */
function lookup(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c < 128 ? LOOKUP[c] : -1;
}

export function encodeBase32(bytes: Uint8Array): string {
  return encodeBase32With(ALPHABET, bytes);
}

/**
 * Base32 with another 32-letter alphabet (e.g. Crockford's, for ULIDs): bytes packed into 5-bit
 * groups, most significant first, the last group zero-padded; no padding characters.
 */
export function encodeBase32With(alphabet: string, bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += alphabet[(buffer >>> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += alphabet[(buffer << (5 - bits)) & 31];
  return out;
}

/** Length of the unpadded base32 text of `byteLength` bytes (64 → 103, 32 → 52). */
export function base32Length(byteLength: number): number {
  return Math.ceil((byteLength * 8) / 5);
}

/** True when `text` (trailing `=` allowed) holds only RFC 4648 base32 characters. */
export function isBase32(text: string): boolean {
  if (typeof text !== 'string') return false;
  const body = withoutTrailing(text, '=');
  if (body.length === 0) return false;
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (c >= 128 || LOOKUP[c] < 0) return false;
  }
  return true;
}

/**
 * Decodes base32; returns null for characters outside the alphabet, an impossible length, or
 * non-zero padding bits (so that every byte string has exactly one accepted encoding). Reads `text`
 * from `start` to `end` (the whole string by default), so a field can be decoded in place.
 */
export function decodeBase32(text: string, start = 0, end = text?.length): Uint8Array | null {
  if (typeof text !== 'string') return null;
  while (end > start && text.charCodeAt(end - 1) === 0x3d /* = */) end--;
  const length = end - start;
  const rem = length % 8;
  if (rem === 1 || rem === 3 || rem === 6) return null;
  const out = new Uint8Array(Math.floor((length * 5) / 8));
  // Whole 8-character groups are 5 bytes each: two 20-bit halves, no bit loop (signatures are hot).
  const whole = end - rem;
  let index = 0;
  for (let i = start; i < whole; i += 8) {
    const v0 = lookup(text, i);
    const v1 = lookup(text, i + 1);
    const v2 = lookup(text, i + 2);
    const v3 = lookup(text, i + 3);
    const v4 = lookup(text, i + 4);
    const v5 = lookup(text, i + 5);
    const v6 = lookup(text, i + 6);
    const v7 = lookup(text, i + 7);
    if ((v0 | v1 | v2 | v3 | v4 | v5 | v6 | v7) < 0) return null;
    const high = (v0 << 15) | (v1 << 10) | (v2 << 5) | v3;
    const low = (v4 << 15) | (v5 << 10) | (v6 << 5) | v7;
    out[index++] = high >>> 12;
    out[index++] = (high >>> 4) & 0xff;
    out[index++] = ((high & 0xf) << 4) | (low >>> 16);
    out[index++] = (low >>> 8) & 0xff;
    out[index++] = low & 0xff;
  }
  let buffer = 0;
  let bits = 0;
  for (let i = whole; i < end; i++) {
    const value = lookup(text, i);
    if (value < 0) return null;
    buffer = (buffer << 5) | value;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[index++] = (buffer >>> bits) & 0xff;
    }
    buffer &= (1 << bits) - 1;
  }
  if (buffer !== 0) return null;
  return out;
}
