/**
 * Property laws of the byte codecs against independent oracles: a reference base32 decoder written from
 * RFC 4648 §6, and Node's Buffer for base64url, base64 and hex.
 */
import fc from 'fast-check';
import { decodeBase32, encodeBase32, base32Length, isBase32 } from './base32.codec.js';
import { decodeBase64Flexible, decodeBase64Url, encodeBase64Url } from './base64url.codec.js';
import { decodeHex, encodeHex } from './hex.codec.js';
import { BASE58_MAX_LENGTH, decodeBase58, encodeBase58 } from './base58.codec.js';
import { fromUtf8, utf8 } from './utf8.codec.js';

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** RFC 4648 §6, bit by bit: trailing `=` dropped, 5 bits a character, leftover bits all zero. */
function referenceBase32(text: string): number[] | null {
  const body = text.replace(/=*$/, '');
  if (![0, 2, 4, 5, 7].includes(body.length % 8)) return null;
  let bits = '';
  for (const ch of body) {
    const v = B32.indexOf(ch);
    if (v < 0) return null;
    bits += v.toString(2).padStart(5, '0');
  }
  const whole = Math.floor(bits.length / 8) * 8;
  if (/1/.test(bits.slice(whole))) return null;
  const out: number[] = [];
  for (let i = 0; i < whole; i += 8) out.push(parseInt(bits.slice(i, i + 8), 2));
  return out;
}

const base32ish = fc.string({
  unit: fc.constantFrom(...B32, '=', 'a', '1', '0', '8', '\u00c0'),
  maxLength: 40,
});
const base64ish = fc.string({
  unit: fc.constantFrom(...B64URL, '=', '+', '/', ' ', '\n', '.'),
  maxLength: 40,
});
const anyText = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
  base32ish,
  base64ish,
);

describe('codec laws', () => {
  describe('base32', () => {
    it('oracle: decodeBase32 agrees with a bit-by-bit RFC 4648 decoder on any text', () => {
      fc.assert(
        fc.property(fc.oneof(base32ish, anyText), (text) => {
          const got = decodeBase32(text);
          const want = referenceBase32(text);
          expect(got === null ? null : [...got]).toEqual(want);
        }),
        { numRuns: 2000 },
      );
    });
    it('canonical form: an accepted text re-encodes to itself without its padding', () => {
      fc.assert(
        fc.property(base32ish, (text) => {
          const bytes = decodeBase32(text);
          if (bytes !== null) expect(encodeBase32(bytes)).toBe(text.replace(/=*$/, ''));
        }),
        { numRuns: 2000 },
      );
    });
    it('bounds: encodeBase32 is base32Length long and isBase32 holds of it (when not empty)', () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 100 }), (b) => {
          const text = encodeBase32(b);
          expect(text.length).toBe(base32Length(b.length));
          expect(isBase32(text)).toBe(b.length > 0);
        }),
      );
    });
    it('isBase32 accepts no text that has a character outside A-Z2-7 before its trailing =', () => {
      fc.assert(
        fc.property(anyText, (text) => {
          expect(isBase32(text)).toBe(/^[A-Z2-7]+=*$/.test(text));
        }),
      );
    });
    it('totality: decodeBase32 never throws, for any range of any text', () => {
      fc.assert(
        fc.property(anyText, fc.nat(50), fc.nat(50), (text, a, b) => {
          const start = Math.min(a, b, text.length);
          const end = Math.min(Math.max(a, b), text.length);
          expect(() => decodeBase32(text, start, end)).not.toThrow();
        }),
      );
    });
  });

  describe('base64url', () => {
    it('oracle: encodeBase64Url equals Buffer base64url', () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 100 }), (b) => {
          expect(encodeBase64Url(b)).toBe(Buffer.from(b).toString('base64url'));
        }),
      );
    });
    it('oracle: strict decoding accepts exactly the texts Buffer decodes and encodes back to the same text', () => {
      fc.assert(
        fc.property(fc.oneof(base64ish, anyText), (text) => {
          const viaBuffer = Buffer.from(text, 'base64url');
          const canonical = viaBuffer.toString('base64url') === text;
          const got = decodeBase64Url(text);
          expect(got === null ? null : Buffer.from(got).toString('hex')).toEqual(
            canonical ? viaBuffer.toString('hex') : null,
          );
        }),
        { numRuns: 2000 },
      );
    });
    it('oracle: flexible decoding accepts the canonical base64url text, the canonical base64 text padded or not, and nothing else', () => {
      const spellings = (b: Uint8Array) => {
        const std = Buffer.from(b).toString('base64');
        return new Set([Buffer.from(b).toString('base64url'), std, std.replace(/=+$/, '')]);
      };
      fc.assert(
        fc.property(fc.oneof(base64ish, anyText), (text) => {
          const got = decodeBase64Flexible(text);
          if (got !== null) expect(spellings(got).has(text)).toBe(true);
        }),
        { numRuns: 2000 },
      );
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 60 }), (b) => {
          for (const s of spellings(b)) expect([...decodeBase64Flexible(s)!]).toEqual([...b]);
        }),
      );
    });
  });

  describe('hex', () => {
    it('oracle: encodeHex equals Buffer hex; decodeHex accepts exactly even-length hex of either case', () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 64 }), (b) =>
          expect(encodeHex(b)).toBe(Buffer.from(b).toString('hex')),
        ),
      );
      fc.assert(
        fc.property(
          fc.oneof(
            fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEFgG \n'), maxLength: 20 }),
            anyText,
          ),
          (text) => {
            const ok = /^(?:[0-9a-fA-F]{2})*$/.test(text);
            const got = decodeHex(text);
            expect(got === null ? null : encodeHex(got)).toBe(ok ? text.toLowerCase() : null);
          },
        ),
      );
    });
  });

  describe('base58', () => {
    it('canonical form: an accepted text encodes back to itself, and no text over the bound is accepted', () => {
      fc.assert(
        fc.property(
          fc.oneof(
            fc.string({
              unit: fc.constantFrom(...'123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0OIl'),
              maxLength: 140,
            }),
            anyText,
          ),
          (text) => {
            const bytes = decodeBase58(text);
            if (bytes !== null) expect(encodeBase58(bytes)).toBe(text);
            if (text.length > BASE58_MAX_LENGTH) expect(bytes).toBeNull();
          },
        ),
      );
    });
  });

  describe('UTF-8', () => {
    it('round trip: well-formed text without a leading BOM decodes back to itself', () => {
      fc.assert(
        fc.property(fc.string({ unit: 'grapheme' }), (text) => {
          fc.pre(!text.startsWith('\uFEFF'));
          expect(fromUtf8(utf8(text))).toBe(text);
        }),
      );
    });
    it('oracle: utf8 equals Buffer.from(text, "utf8") on any UTF-16 text', () => {
      fc.assert(
        fc.property(fc.string({ unit: 'binary' }), (text) => {
          expect(Buffer.from(utf8(text)).equals(Buffer.from(text, 'utf8'))).toBe(true);
        }),
      );
    });
  });
});
