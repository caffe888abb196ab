/** The charset rule of the JSON body parser: UTF-8 or no charset at all (RFC 8259 §8.1). */
import fc from 'fast-check';
import { declaresUtf8OrNoCharset, isIdentityCoding } from './json-body.parser.js';

describe('isIdentityCoding', () => {
  it.each([
    [undefined, true],
    ['', true],
    ['identity', true],
    [' Identity , identity ', true],
    ['gzip', false],
    ['identity, gzip', false],
    ['deflate', false],
    ['x-gzip', false],
  ])('%j → %s', (coding, expected) => {
    expect(isIdentityCoding(coding)).toBe(expected);
  });
});

describe('declaresUtf8OrNoCharset', () => {
  it.each([
    [undefined, true],
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['application/json;charset=UTF8', true],
    ['application/json; charset="Utf-8"', true],
    ['application/json; foo=bar', true],
    ['application/json; charset=utf-16', false],
    ['application/json; charset="latin1"', false],
    ['application/json; charset=', false],
    ['application/json; foo=bar; charset=us-ascii', false],
  ])('%j → %s', (type, expected) => {
    expect(declaresUtf8OrNoCharset(type)).toBe(expected);
  });

  it('refuses every charset token but utf-8 and utf8, in any case and quoting', () => {
    const token = fc.stringMatching(/^[A-Za-z0-9_.:+-]{1,20}$/);
    fc.assert(
      fc.property(token, fc.boolean(), (charset, quoted) => {
        const value = quoted ? `"${charset}"` : charset;
        const utf8 = ['utf-8', 'utf8'].includes(charset.toLowerCase());
        expect(declaresUtf8OrNoCharset(`application/json; charset=${value}`)).toBe(utf8);
      }),
      { numRuns: 2000 },
    );
  });
});
