/**
 * ULIDs for request ids, drawn from a pooled random buffer. Every request needs an id, and asking the
 * OS for 10 random bytes per request (or, as the `ulid` package does, per character) was the largest
 * single cost of a trivial route in a CPU profile (16 % of server time). One `randomFillSync` fills
 * 409 ids' worth of randomness; ids stay unpredictable (same CSPRNG), only the syscalls are batched.
 */
import { randomFillSync } from 'node:crypto';
import { ulid } from '@passport/core';

const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let offset = POOL_BYTES;

function pooledRandom(length: number): Uint8Array {
  if (offset + length > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + length);
  offset += length;
  return bytes;
}

export function newRequestUlid(): string {
  return ulid(Date.now(), pooledRandom);
}
