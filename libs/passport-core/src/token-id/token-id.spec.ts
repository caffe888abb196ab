/**
 * Token ids: the JSON form (12 lowercase letters) and the any-case form lookups accept. The exported
 * pattern is the callers' copy: changing it in place (`compile`, which a frozen RegExp still allows)
 * must not change what the library accepts (a probe made `isTokenId('<script>')` true that way).
 */
import { tokenIdFromSubject } from '../login/jwt-claims.js';
import { isTokenId, normalizeTokenId, TOKEN_ID_PATTERN } from './token-id.js';

/** Runs `check` while the exported pattern matches anything, then puts it back. */
function withPatternRecompiled(check: () => void): void {
  const source = TOKEN_ID_PATTERN.source;
  const recompile = (to: string) => {
    try {
      TOKEN_ID_PATTERN.compile(to);
    } catch {
      // Frozen: the new pattern is in place before its lastIndex write throws.
    }
  };
  recompile('^.*$');
  try {
    expect(TOKEN_ID_PATTERN.test('<script>')).toBe(true); // the change took
    check();
  } finally {
    recompile(source);
  }
}

describe('token ids', () => {
  it('isTokenId takes 12 lowercase letters only; normalizeTokenId any case', () => {
    expect(isTokenId('abcdefghijkl')).toBe(true);
    expect(isTokenId('ABCDEFGHIJKL')).toBe(false);
    expect(isTokenId('abcdefghijk')).toBe(false);
    expect(isTokenId(42)).toBe(false);
    expect(normalizeTokenId('AbCdEfGhIjKl')).toBe('abcdefghijkl');
    expect(normalizeTokenId('abcdefghijk1')).toBeNull();
  });

  it('the exported pattern is frozen and matches what isTokenId takes', () => {
    expect(Object.isFrozen(TOKEN_ID_PATTERN)).toBe(true);
    for (const id of ['abcdefghijkl', 'ABCDEFGHIJKL', '<script>', ''])
      expect(TOKEN_ID_PATTERN.test(id)).toBe(isTokenId(id));
  });

  it('changing the exported pattern in place changes nothing the library accepts', () => {
    withPatternRecompiled(() => {
      expect(isTokenId('<script>')).toBe(false);
      expect(tokenIdFromSubject('passport.local;sub=<script>')).toBeNull();
      expect(tokenIdFromSubject('passport.local;sub=abcdefghijkl')).toBe('abcdefghijkl');
    });
  });
});
