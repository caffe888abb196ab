import fc from 'fast-check';
import { ulid, ulidTimeMs, ULID_PATTERN } from '@passport/core/login';
import { encodeRequestUlid, newRequestUlid } from './request-ulid.js';

const MAX_TIME_MS = 2 ** 48 - 1;

describe('request ULIDs', () => {
  it('encode the time as the core ULID does, and the random bytes one character each (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MAX_TIME_MS }),
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.integer({ min: 0, max: MAX_TIME_MS }),
        (timeMs, random, otherMs) => {
          // Another time first, so the per-millisecond memo is exercised in both directions.
          encodeRequestUlid(otherMs, random);
          const id = encodeRequestUlid(timeMs, random);
          expect(id).toMatch(ULID_PATTERN);
          expect(id.slice(0, 10)).toBe(ulid(timeMs, () => new Uint8Array(10)).slice(0, 10));
          expect(ulidTimeMs(id)).toBe(timeMs);
          const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
          expect([...id.slice(10)].map((c) => alphabet.indexOf(c))).toEqual([...random].map((b) => b & 31));
        },
      ),
    );
  });

  it('new ids carry the current time and differ from each other', () => {
    const before = Date.now();
    const ids = Array.from({ length: 2000 }, () => newRequestUlid());
    const after = Date.now();
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id).toMatch(ULID_PATTERN);
      const t = ulidTimeMs(id)!;
      expect(t).toBeGreaterThanOrEqual(before);
      expect(t).toBeLessThanOrEqual(after);
    }
  });

  it('spread their random characters over the whole alphabet', () => {
    const seen = new Map<string, number>();
    for (let i = 0; i < 4000; i++)
      for (const c of newRequestUlid().slice(10)) seen.set(c, (seen.get(c) ?? 0) + 1);
    expect(seen.size).toBe(32);
    // 64,000 characters over 32 symbols: 2,000 each on average; a stuck bit would halve or empty some.
    for (const n of seen.values()) expect(n).toBeGreaterThan(1600);
  });
});
