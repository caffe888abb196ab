/**
 * Random bytes for per-request values (request ids, HOLA nonces), drawn from a pooled CSPRNG buffer.
 * Asking the OS for a few bytes on every request was the largest single cost of trivial routes in CPU
 * profiles; one `randomFillSync` now serves a 4 KiB pool. The bytes come from the same CSPRNG, so the
 * values are as unpredictable as `randomBytes(n)`; each byte is handed out once.
 */
import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let offset = POOL_BYTES;

/** `length` fresh random bytes (at most 4096). The view is only valid until the next call: copy to keep. */
export function pooledRandomBytes(length: number): Uint8Array {
  const at = pooledRandomSpan(length);
  return pool.subarray(at, at + length);
}

/**
 * The pool itself, for callers that read their bytes in place (`pooledRandomSpan`) rather than through
 * a new view: making the view cost as much as the rest of a request id.
 */
export const randomPool: Readonly<Uint8Array> = pool;

/** The offset in `randomPool` of `length` fresh random bytes (at most 4096), valid until the next call. */
export function pooledRandomSpan(length: number): number {
  if (length > POOL_BYTES) throw new RangeError(`at most ${POOL_BYTES} pooled bytes at a time`);
  if (offset + length > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const at = offset;
  offset += length;
  return at;
}

const UPPER_HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).toUpperCase().padStart(2, '0'));

/** A 16-byte HOLA nonce as 32 uppercase hex characters (spec: Nonce body). */
export function newNonceHex(): string {
  // Straight from the pool through a table: no Buffer copy and no second string for the upper case.
  const bytes = pooledRandomBytes(16);
  let hex = '';
  for (let i = 0; i < 16; i++) hex += UPPER_HEX[bytes[i]];
  return hex;
}
