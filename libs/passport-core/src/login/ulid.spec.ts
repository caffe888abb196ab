/**
 * ULIDs: the exported pattern is the callers' copy. Changing it in place (`compile`, which a frozen
 * RegExp still allows) must not change which ids `ulidTimeMs` reads (as for TOKEN_ID_PATTERN).
 */
import { ulid, ULID_PATTERN, ulidTimeMs } from './ulid.js';

describe('ULID_PATTERN', () => {
  it('is frozen and matches the ids ulid() makes', () => {
    expect(Object.isFrozen(ULID_PATTERN)).toBe(true);
    expect(ULID_PATTERN.test(ulid(1_795_000_000_000))).toBe(true);
  });

  it('changing it in place changes nothing ulidTimeMs reads', () => {
    const source = ULID_PATTERN.source;
    const recompile = (to: string) => {
      try {
        ULID_PATTERN.compile(to);
      } catch {
        // Frozen: the new pattern is in place before its lastIndex write throws.
      }
    };
    recompile('^.*$');
    try {
      expect(ULID_PATTERN.test('not a ulid')).toBe(true); // the change took
      expect(ulidTimeMs('not a ulid')).toBeNull();
      expect(ulidTimeMs(ulid(1_795_000_000_000))).toBe(1_795_000_000_000);
    } finally {
      recompile(source);
    }
  });
});
