import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { bearerToken, tokenMatches } from './prometheus-scrape.controller.js';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

describe('the scrape token check', () => {
  it('accepts exactly the token, whatever the lengths compared (no length-dependent early exit or throw)', () => {
    const expected = 'x'.repeat(40);
    expect(tokenMatches(expected, digest(expected))).toBe(true);
    fc.assert(
      fc.property(fc.string({ maxLength: 600 }), (presented) => {
        expect(tokenMatches(presented, digest(expected))).toBe(presented === expected);
      }),
    );
  });

  it('reads only `Bearer <token>`, the scheme in any case', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bEaReR abc')).toBe('abc');
    for (const header of [undefined, '', 'Bearer', 'Bearer ', 'Basic abc', 'abc', 'Bearer a b', 'Bearerabc'])
      expect(bearerToken(header)).toBeUndefined();
  });
});
