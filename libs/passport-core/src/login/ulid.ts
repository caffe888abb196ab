/**
 * @module login/ulid
 * ULIDs (ulid/spec: 48-bit millisecond time + 80 random bits, Crockford base32, 26 characters) for
 * session and JWT ids. Written here rather than taken from the `ulid` package because that package's
 * Node entry imports `node:crypto`, which this browser-safe library must not; `globalThis.crypto`
 * (Web Crypto, present in browsers and Node ≥ 19) supplies the randomness.
 */
import { encodeBase32With } from '../codecs/base32.codec.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const MAX_TIME_MS = 2 ** 48 - 1;

/** The library's own copy: an exported RegExp can be changed in place (`compile`), even frozen. */
const ULID_SHAPE = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

/** A ULID's 26 characters, for callers' own checks (the library's functions do not read it). */
export const ULID_PATTERN: RegExp = Object.freeze(new RegExp(ULID_SHAPE.source));

export type RandomBytes = (length: number) => Uint8Array;

const webCryptoRandom: RandomBytes = (length) => globalThis.crypto.getRandomValues(new Uint8Array(length));

export function ulid(timeMs: number, random: RandomBytes = webCryptoRandom): string {
  if (!Number.isSafeInteger(timeMs) || timeMs < 0 || timeMs > MAX_TIME_MS)
    throw new RangeError('ULID time must be 0..2^48-1 ms.');
  let time = '';
  let t = timeMs;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  // 80 random bits = exactly 16 characters of 5 bits.
  return time + encodeBase32With(CROCKFORD, random(10));
}

/** The millisecond time a ULID encodes; null for a non-ULID. */
export function ulidTimeMs(id: string): number | null {
  if (!ULID_SHAPE.test(id)) return null;
  let t = 0;
  for (let i = 0; i < 10; i++) t = t * 32 + CROCKFORD.indexOf(id[i]);
  return t;
}
