import fc from 'fast-check';
import { hasUnprintable, printableText } from './printable-text.js';

describe('printable text', () => {
  it.each([
    ['plain text, accents and emoji', 'compromised: café 🧑', false],
    ['NUL', 'a\u0000b', true],
    ['an ANSI escape', 'x\u001b[31m', true],
    ['a newline', 'two\nlines', true],
    ['a right-to-left override', 'evil\u202etxt', true],
    ['a left-to-right mark', 'mark\u200e', true],
    ['a zero-width space', 'zero\u200bwidth', true],
    ['a line separator', 'sep\u2028', true],
    ['a lone surrogate', 'half \ud800', true],
  ])('%s → unprintable %s', (_label, text, expected) => {
    expect(hasUnprintable(text)).toBe(expected);
  });

  it('replaces each unprintable character by ? and cuts to the length; what it returns is printable', () => {
    expect(printableText('a\u001b[2Jb\nc', 100)).toBe('a?[2Jb?c');
    expect(printableText('abcdef', 3)).toBe('abc');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.integer({ min: 0, max: 50 }), (text, max) => {
        const out = printableText(text, max);
        expect(hasUnprintable(out)).toBe(false);
        expect(out.length).toBeLessThanOrEqual(max);
      }),
      { numRuns: 500 },
    );
  });
});
