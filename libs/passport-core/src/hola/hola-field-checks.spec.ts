/**
 * Each loop check equals the regular expression in its doc comment, on strings drawn from the
 * characters that matter to it (and a few that must be refused: lowercase, non-ASCII digits, blanks).
 */
import fc from 'fast-check';
import { isPaddedBase32, isUnixMillis, isUpperHex, isUpperTokenId } from './hola-field-checks.js';

const cases: Array<[string, (text: string, start?: number, end?: number) => boolean, RegExp, string]> = [
  ['isUpperTokenId', isUpperTokenId, /^[A-Z]{12}$/, 'ABCXYZ@[az09 '],
  ['isUpperHex', isUpperHex, /^[0-9A-F]+$/, '0189ABFG@/:af\u0660'],
  ['isUnixMillis', isUnixMillis, /^\d{10,}$/, '0123456789-/:a\u0660'],
  ['isPaddedBase32', isPaddedBase32, /^[A-Z2-7]*=*$/, 'AZ27=18@[a '],
];

/** Strings over `alphabet`, often exactly 12 long and often of mostly matching characters. */
function nearMatches(alphabet: string): fc.Arbitrary<string> {
  const chars = alphabet.split('');
  const good = chars.slice(0, Math.ceil(chars.length / 2));
  const unit = fc.oneof(
    { weight: 9, arbitrary: fc.constantFrom(...good) },
    { weight: 1, arbitrary: fc.constantFrom(...chars) },
  );
  return fc.oneof(
    fc.string({ unit, maxLength: 24 }),
    fc.string({ unit, minLength: 12, maxLength: 12 }),
    fc.string({ unit: fc.constantFrom(...chars), maxLength: 24 }),
  );
}

describe.each(cases)('%s', (_name, check, expression, alphabet) => {
  it('equals its regular expression on random strings', () => {
    fc.assert(
      fc.property(nearMatches(alphabet), (text) => {
        expect(check(text)).toBe(expression.test(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('equals it on arbitrary text too', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        expect(check(text)).toBe(expression.test(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('checks a range of a longer string exactly as it checks that range cut out', () => {
    fc.assert(
      fc.property(
        nearMatches(alphabet),
        nearMatches(alphabet),
        nearMatches(alphabet),
        (before, field, after) => {
          const text = before + field + after;
          const start = before.length;
          const end = start + field.length;
          expect(check(text, start, end)).toBe(check(field));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
