/**
 * Property law of the JSON body parser's charset rule against a reference reading of a media type's
 * parameters (RFC 9110 §5.6.6: `*( OWS ";" OWS [ token "=" ( token / quoted-string ) ] )`, a quoted-string
 * holding `;` and `=` as text), on headers whose parameter names are distinct.
 */
import fc from 'fast-check';
import { declaresUtf8OrNoCharset } from './json-body.parser.js';

/** The charset parameter of a well-formed media type (lowercased), undefined when absent; null when not well-formed. */
function referenceCharset(header: string): string | undefined | null {
  let rest = header.replace(/^application\/json/, '');
  let charset: string | undefined;
  const param =
    /^[ \t]*;[ \t]*(?:([!#$%&'*+.^_`|~0-9A-Za-z-]+)=(?:([!#$%&'*+.^_`|~0-9A-Za-z-]+)|"((?:[^"\\]|\\.)*)"))?/;
  while (rest !== '') {
    const m = param.exec(rest);
    if (!m) return null;
    if (m[1]?.toLowerCase() === 'charset') charset = (m[2] ?? m[3].replace(/\\(.)/g, '$1')).toLowerCase();
    rest = rest.slice(m[0].length);
  }
  return charset;
}

const value = fc.constantFrom(
  'utf-8',
  'UTF-8',
  'utf8',
  'latin1',
  '"utf-8"',
  '"latin1"',
  '"x;charset=latin1"',
  '"x;charset=utf-8"',
  '"a=b"',
  'x',
);
const ows = fc.constantFrom('', ' ', '\t');
const header = fc
  .uniqueArray(fc.tuple(fc.constantFrom('charset', 'foo', 'q', 'profile'), ows, value), {
    selector: ([name]) => name,
    maxLength: 3,
  })
  .chain((params) => fc.shuffledSubarray(params, { minLength: params.length, maxLength: params.length }))
  .map((params) => 'application/json' + params.map(([name, w, v]) => `;${w}${name}=${v}`).join(''));

describe('JSON body parser laws', () => {
  it('oracle: the charset judged is the charset parameter a media-type reader finds (a quoted value of another parameter is no charset)', () => {
    fc.assert(
      fc.property(header, (h) => {
        const charset = referenceCharset(h);
        fc.pre(charset !== null);
        expect({ header: h, utf8: declaresUtf8OrNoCharset(h) }).toEqual({
          header: h,
          utf8: charset === undefined || charset === 'utf-8' || charset === 'utf8',
        });
      }),
      { numRuns: 2000 },
    );
  });
});
