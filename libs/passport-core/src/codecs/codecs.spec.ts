import fc from 'fast-check';
import { decodeBase32, encodeBase32, base32Length, isBase32 } from './base32.codec.js';
import { decodeBase64Flexible, decodeBase64Url, encodeBase64Url } from './base64url.codec.js';
import { decodeHex, encodeHex } from './hex.codec.js';
import { BASE58_MAX_LENGTH, decodeBase58, encodeBase58 } from './base58.codec.js';
import { withoutTrailing } from './trailing.js';
import { bytesEqual, fromUtf8, hasLoneSurrogate, utf8 } from './utf8.codec.js';

// RFC 4648 §10 test vectors.
const RFC4648 = ['', 'f', 'fo', 'foo', 'foob', 'fooba', 'foobar'];
const BASE32 = ['', 'MY', 'MZXQ', 'MZXW6', 'MZXW6YQ', 'MZXW6YTB', 'MZXW6YTBOI'];
const BASE64 = ['', 'Zg', 'Zm8', 'Zm9v', 'Zm9vYg', 'Zm9vYmE', 'Zm9vYmFy'];
const bytesOf = (s: string) => new TextEncoder().encode(s);

describe('base32 (RFC 4648 §6)', () => {
  it.each(RFC4648.map((s, i) => [s, BASE32[i]]))('encodes %j as %s (unpadded)', (input, expected) => {
    expect(encodeBase32(bytesOf(input))).toBe(expected);
    expect(decodeBase32(expected)).toEqual(bytesOf(input));
  });
  it('tolerates trailing padding on input', () => {
    expect(decodeBase32('MZXW6YQ=')).toEqual(bytesOf('foob'));
    expect(decodeBase32('MY======')).toEqual(bytesOf('f'));
  });
  it('rejects foreign characters, lowercase, impossible lengths and non-canonical tails', () => {
    expect(decodeBase32('MZXW1')).toBeNull();
    expect(decodeBase32('mzxw6')).toBeNull();
    expect(decodeBase32('M')).toBeNull();
    expect(decodeBase32('MZ')).toBeNull(); // 'f' is MY; MZ carries a non-zero padding bit
    // No byte count encodes to 1, 3 or 6 characters past whole groups (a mutation probe: 6 was let
    // through as 3 bytes, and no test noticed); 0, 2, 4, 5 and 7 are the lengths of 0–4 bytes.
    for (const length of [1, 3, 6, 9, 11, 14])
      expect([length, decodeBase32('A'.repeat(length))]).toEqual([length, null]);
    for (const length of [0, 2, 4, 5, 7, 8, 10])
      expect([length, decodeBase32('A'.repeat(length))?.length]).toEqual([
        length,
        Math.floor((length * 5) / 8),
      ]);
    expect(isBase32('ABC=')).toBe(true);
    expect(isBase32('AB1')).toBe(false);
  });
  it('gives 103 characters for a 64-byte signature and 52 for a 32-byte key', () => {
    expect(base32Length(64)).toBe(103);
    expect(encodeBase32(new Uint8Array(64))).toHaveLength(103);
    expect(encodeBase32(new Uint8Array(32))).toHaveLength(52);
  });
  it('round-trips any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (b) => bytesEqual(decodeBase32(encodeBase32(b))!, b)),
    );
  });
  it('property: a foreign character at any position (whole groups and tail alike) is refused', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 80 }),
        fc.nat(),
        fc.constantFrom('1', '8', '0', 'a', '=', '/', 'É', '\u0100', ' '),
        (b, at, foreign) => {
          const text = encodeBase32(b);
          const i = at % text.length;
          const changed = text.slice(0, i) + foreign + text.slice(i + 1);
          if (foreign === '=' && /^=*$/.test(text.slice(i + 1))) return; // trailing padding is tolerated
          expect(decodeBase32(changed)).toBeNull();
        },
      ),
      { numRuns: 2000 },
    );
  });
  it('property: decoding a range of a longer text equals decoding that range cut out', () => {
    const base32ish = fc.string({ unit: fc.constantFrom('A', 'Q', 'Z', '2', '7', '=', '1', 'a', '/') });
    fc.assert(
      fc.property(
        base32ish,
        fc.uint8Array({ maxLength: 70 }),
        fc.boolean(),
        base32ish,
        (before, b, pad, after) => {
          const field = encodeBase32(b) + (pad ? '===' : '');
          const text = before + field + after;
          const inPlace = decodeBase32(text, before.length, before.length + field.length);
          expect(inPlace).toEqual(decodeBase32(field));
          expect(inPlace).toEqual(b);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('base64url (RFC 4648 §5)', () => {
  it.each(RFC4648.map((s, i) => [s, BASE64[i]]))('encodes %j as %s (unpadded)', (input, expected) => {
    expect(encodeBase64Url(bytesOf(input))).toBe(expected);
    expect(decodeBase64Url(expected)).toEqual(bytesOf(input));
  });
  it('uses - and _ and never =', () => {
    expect(encodeBase64Url(Uint8Array.from([0xfb, 0xff]))).toBe('-_8');
  });
  it('strict decoding refuses padding, standard alphabet and non-canonical tails', () => {
    expect(decodeBase64Url('Zg==')).toBeNull();
    expect(decodeBase64Url('+/8')).toBeNull();
    expect(decodeBase64Url('Zh')).toBeNull();
    expect(decodeBase64Url('Z')).toBeNull();
  });
  it('flexible decoding accepts base64 or base64url, padded or not, never mixed', () => {
    expect(decodeBase64Flexible('+/8=')).toEqual(Uint8Array.from([0xfb, 0xff]));
    expect(decodeBase64Flexible('-_8')).toEqual(Uint8Array.from([0xfb, 0xff]));
    expect(decodeBase64Flexible('+_8')).toBeNull();
    expect(decodeBase64Flexible('Zg=')).toBeNull();
    // A mutation probe: stripping any run of '=' passed; at most two pad a group.
    expect(decodeBase64Flexible('Zg==')).toEqual(Uint8Array.from([0x66]));
    expect(decodeBase64Flexible('Zg======')).toBeNull();
  });
  it('round-trips any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (b) =>
        bytesEqual(decodeBase64Url(encodeBase64Url(b))!, b),
      ),
    );
  });
});

describe('hex and base58', () => {
  it('hex is lowercase out, either case in', () => {
    expect(encodeHex(Uint8Array.from([0xab, 0x01]))).toBe('ab01');
    expect(decodeHex('AB01')).toEqual(Uint8Array.from([0xab, 0x01]));
    expect(decodeHex('abc')).toBeNull();
    expect(decodeHex('zz')).toBeNull();
  });
  it('base58 matches the Bitcoin alphabet (leading zero bytes become 1s)', () => {
    expect(encodeBase58(Uint8Array.from([0, 0, 1]))).toBe('112');
    expect(decodeBase58('0OIl')).toBeNull();
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (b) => bytesEqual(decodeBase58(encodeBase58(b))!, b)),
    );
  });
});

describe('hasLoneSurrogate', () => {
  it.each([
    ['', false],
    ['plain', false],
    ['\ud83d\ude00', false],
    ['\ud800', true],
    ['\udfff', true],
    ['a\ud800b', true],
    ['\ude00\ud83d', true],
  ])('%j → %s', (text, expected) => {
    expect(hasLoneSurrogate(text)).toBe(expected);
  });

  it('agrees with String.prototype.isWellFormed on any UTF-16 code-unit string', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.integer({ min: 0xd7f0, max: 0xe010 }).map((c) => String.fromCharCode(c)) }),
        fc.string({ unit: 'binary' }),
        (a, b) => {
          const text = a + b;
          expect(hasLoneSurrogate(text)).toBe(!(text as string & { isWellFormed(): boolean }).isWellFormed());
        },
      ),
      { numRuns: 3000 },
    );
  });
});

// Found by a probe: `replace(/=+$/, '')` and base58 decoding are quadratic on long hostile input
// (64k `=` then `A`: 2.9 s in isBase32; 50k base58 characters: 2.4 s). Inputs far past those sizes
// must still be answered (a quadratic path would take minutes here and fail the test's time limit).
describe('linear work on long input', () => {
  it('isBase32 and decodeBase32 with a long run of `=` before another character', () => {
    const hostile = `${'='.repeat(500_000)}A`;
    expect(isBase32(hostile)).toBe(false);
    expect(decodeBase32(hostile)).toBeNull();
    expect(isBase32(`AB${'='.repeat(500_000)}`)).toBe(true);
  });

  it('decodeBase58 reads at most BASE58_MAX_LENGTH characters', () => {
    expect(decodeBase58('2'.repeat(BASE58_MAX_LENGTH + 1))).toBeNull();
    expect(decodeBase58('2'.repeat(1_000_000))).toBeNull();
    const sixtyFour = new Uint8Array(64).fill(255);
    expect(encodeBase58(sixtyFour).length).toBeLessThanOrEqual(BASE58_MAX_LENGTH);
    expect(decodeBase58(encodeBase58(sixtyFour))).toEqual(sixtyFour);
  });

  it('withoutTrailing: property, the same as the regex on any text', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('/', '=', 'a', 'é') }),
        fc.constantFrom('/', '='),
        (text, char) => {
          const regex = char === '/' ? /\/+$/ : /=+$/;
          expect(withoutTrailing(text, char)).toBe(text.replace(regex, ''));
        },
      ),
    );
    expect(withoutTrailing(`${'/'.repeat(500_000)}x`, '/')).toHaveLength(500_001);
  });
});

// Found by a probe: from JavaScript, decodeBase64Url(42) and decodeBase32(42) returned empty bytes and
// isBase32(42) was true; a value that is not text is no encoding of anything.
describe('the decoders refuse values that are not strings', () => {
  const decoders = { decodeBase32, decodeBase64Url, decodeBase64Flexible, decodeBase58, decodeHex };
  it.each(Object.keys(decoders))('%s answers null for any non-string', (name) => {
    const decode = decoders[name as keyof typeof decoders] as (value: unknown) => Uint8Array | null;
    fc.assert(
      fc.property(
        fc.anything().filter((v) => typeof v !== 'string'),
        (value) => {
          expect(decode(value)).toBeNull();
        },
      ),
      { numRuns: 200 },
    );
    for (const value of [42, 0, null, undefined, { toString: () => 'AAAA' }, ['AA'], new Uint8Array(4)])
      expect(decode(value)).toBeNull();
  });

  it('isBase32 is false for any non-string', () => {
    fc.assert(
      fc.property(
        fc.anything().filter((v) => typeof v !== 'string'),
        (value) => {
          expect(isBase32(value as string)).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('fromUtf8', () => {
  const fatal = new TextDecoder('utf-8', { fatal: true });
  const strict = (bytes: Uint8Array): string | null => {
    try {
      return fatal.decode(bytes);
    } catch {
      return null;
    }
  };

  it('property: answers what a fatal decoder answers, on any bytes (a real U+FFFD and a BOM included)', () => {
    const pieces = fc.oneof(
      fc.uint8Array({ maxLength: 8 }),
      fc.constantFrom(
        Uint8Array.of(0xef, 0xbf, 0xbd), // U+FFFD itself
        Uint8Array.of(0xef, 0xbb, 0xbf), // the BOM
        Uint8Array.of(0xc3, 0xa9), // é
        Uint8Array.of(0xf0, 0x9f, 0x98, 0x80), // an emoji
        Uint8Array.of(0xed, 0xa0, 0x80), // an encoded surrogate: not UTF-8
        Uint8Array.of(0xc0, 0x80), // overlong: not UTF-8
      ),
      fc.string().map((text) => utf8(text)),
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 6 }), (parts) => {
        const bytes = Uint8Array.from(parts.flatMap((part) => [...part]));
        expect(fromUtf8(bytes)).toBe(strict(bytes));
      }),
      { numRuns: 2000 },
    );
    // A leading BOM is dropped, as the platform's decoder drops it.
    expect(fromUtf8(Uint8Array.of(0xef, 0xbb, 0xbf, 0x41))).toBe('A');
  });
});
