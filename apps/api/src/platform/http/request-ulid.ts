/**
 * ULIDs for request ids, with their 80 random bits from the pooled CSPRNG buffer (generating one per
 * request with a syscall per character, as the `ulid` package does, was 16 % of server CPU).
 */
import { ulid } from '@passport/core/login';
import { pooledRandomBytes } from '../infrastructure/pooled-random.js';

export function newRequestUlid(): string {
  return ulid(Date.now(), pooledRandomBytes);
}
