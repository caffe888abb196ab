/**
 * Found by a probe (hostile bytes in error bodies): a refused `tobesignedValues` key was quoted in
 * `details.field` as sent (cut to 80 units, not made printable): C1 controls (U+009B, the 8-bit CSI),
 * bidi overrides and lone surrogates came back raw in the 400. Every other echo of a client's field
 * name goes through `printableText`.
 */
import { PassportError } from '@passport/core';
import { validateSignClientRequest } from '@passport/core/signclient';

const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/u;

function fieldOf(body: unknown): string {
  try {
    validateSignClientRequest(body);
  } catch (err) {
    if (err instanceof PassportError) return String((err.details as { field?: unknown })?.field);
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('signclient names a refused metadata key printably', () => {
  it.each<[string, unknown]>([
    ['a key with C1 and bidi controls, value not a string', { tobesignedValues: { 'a\u009b31m\u202eb': 5 } }],
    ['a key with a lone surrogate', { tobesignedValues: { 'x\ud800y': 'v' } }],
  ])('%s', (_name, body) => {
    expect(UNPRINTABLE.test(fieldOf(body))).toBe(false);
  });
});
