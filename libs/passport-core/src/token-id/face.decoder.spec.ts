/**
 * Face decoding (docs/protocol.md §1): the real ids of both alphabet generations, null rules, the checksum
 * rule, and the build → decode round trip.
 */
import fc from 'fast-check';
import { FACE_CATEGORIES } from './face-categories.js';
import {
  cryptoRandomInt,
  decodeFace,
  faceChecksumLetter,
  randomFaceTokenId,
  tokenIdFromFaceIndices,
} from './face.decoder.js';
import { isTokenId, normalizeTokenId } from './token-id.js';

import vectors from '../../test-vectors/faces.json' with { type: 'json' };

describe('decodeFace rejects what is not a face', () => {
  it.each([
    ['xhsrldbjsnlh', 'x at an even position'],
    ['lbsrldbjsnlh', 'b at an odd position'],
    ['lhsrldbjsnla', 'a as the checksum letter'],
    ['LHSRLDBJSNLH', 'uppercase'],
    ['lhsrldbjsnl', '11 letters'],
    ['lhsrldbjsnlhh', '13 letters'],
    ['', 'empty'],
  ])('%s (%s) → null', (id) => {
    expect(decodeFace(id)).toBeNull();
  });

  it('reports a wrong checksum letter as checksumValid: false', () => {
    expect(decodeFace('bdbdbdbdbdbf')?.checksumValid).toBe(false);
    expect(decodeFace('lhsrldbjsnlj')?.checksumValid).toBe(false);
  });
});

describe('decodeFace on real ids', () => {
  it.each(['lhsrldbjsnlh', 'bjbvcjzqbdsj', 'chbvcnurbkuw', 'bhahbkbramax', 'bkbvehbdcrgm'])(
    '%s decodes with a valid checksum',
    (id) => {
      expect(decodeFace(id)?.checksumValid).toBe(true);
    },
  );

  it('decodes the older even alphabet (l=2, s=3, z=4)', () => {
    const face = decodeFace('lhsrldbjsnlh')!;
    expect(face.categories.overall_structure).toEqual({ index: 2, letter: 'l', value: 'androgynous' });
    expect(face.categories.age_related).toEqual({ index: 3, letter: 's', value: 'senior' });
    expect(decodeFace('bjbvcjzqbdsj')!.categories.eyebrow_style).toEqual({
      index: 4,
      letter: 'z',
      value: 'unibrow',
    });
  });

  it('gives bkbvehbdcrgm a null skin tone (index 9 past the list of 7)', () => {
    expect(decodeFace('bkbvehbdcrgm')!.categories.skin_tones).toEqual({ index: 9, letter: 'r', value: null });
  });

  it('names the 11 categories in id order', () => {
    expect(Object.keys(decodeFace('chbvcnurbkuw')!.categories)).toEqual(FACE_CATEGORIES.map((c) => c.name));
  });

  it('matches every pinned vector in test-vectors/faces.json', () => {
    expect(vectors.cases.length).toBeGreaterThanOrEqual(10);
    for (const c of vectors.cases) expect(decodeFace(c.tokenId)).toEqual(c.face);
  });
});

describe('checksum and id construction', () => {
  it('checksum letter is the odd alphabet at sum mod 15', () => {
    expect(faceChecksumLetter([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])).toBe('d');
    expect(faceChecksumLetter([2, 2, 3, 9, 2, 0, 0, 3, 3, 6, 2])).toBe('h'); // sum 32 → 2
    expect(faceChecksumLetter([5, 14, 5, 14, 5, 14, 5, 14, 5, 14, 5])).toBe('t'); // sum 100 → 10
  });

  it('rejects index lists it cannot encode', () => {
    expect(() => tokenIdFromFaceIndices([0, 0, 0])).toThrow(RangeError);
    expect(() => tokenIdFromFaceIndices([6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])).toThrow(RangeError);
    expect(() => tokenIdFromFaceIndices([0, 15, 0, 0, 0, 0, 0, 0, 0, 0, 0])).toThrow(RangeError);
    expect(() => tokenIdFromFaceIndices([0, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0])).toThrow(RangeError);
    expect(() => tokenIdFromFaceIndices([0, 1.5, 0, 0, 0, 0, 0, 0, 0, 0, 0])).toThrow(RangeError);
  });

  it('builds chbvcnurbkuw back from its indices', () => {
    const face = decodeFace('chbvcnurbkuw')!;
    expect(tokenIdFromFaceIndices(Object.values(face.categories).map((c) => c.index))).toBe('chbvcnurbkuw');
  });

  it('property: every id built from valid indices decodes back to them with a valid checksum', () => {
    const index = (position: number) => fc.integer({ min: 0, max: position % 2 === 0 ? 5 : 14 });
    fc.assert(
      fc.property(fc.tuple(...Array.from({ length: 11 }, (_, p) => index(p))), (indices) => {
        const id = tokenIdFromFaceIndices(indices);
        expect(isTokenId(id)).toBe(true);
        const face = decodeFace(id)!;
        expect(face.checksumValid).toBe(true);
        expect(Object.values(face.categories).map((c) => c.index)).toEqual(indices);
      }),
      { numRuns: 1000 },
    );
  });

  it('randomFaceTokenId gives ids whose every category has a value', () => {
    for (let i = 0; i < 200; i++) {
      const face = decodeFace(randomFaceTokenId(cryptoRandomInt))!;
      expect(face.checksumValid).toBe(true);
      for (const c of Object.values(face.categories)) expect(c.value).not.toBeNull();
    }
  });

  it('randomFaceTokenId draws from the platform CSPRNG when given no random function', () => {
    const ids = new Set(Array.from({ length: 100 }, () => randomFaceTokenId()));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(decodeFace(id)!.checksumValid).toBe(true);
  });

  it('cryptoRandomInt stays in range', () => {
    for (let i = 0; i < 500; i++) {
      const n = cryptoRandomInt(7);
      expect(n >= 0 && n < 7 && Number.isInteger(n)).toBe(true);
    }
    expect(() => cryptoRandomInt(0)).toThrow(RangeError);
  });
});

describe('token id', () => {
  it('isTokenId accepts only 12 lowercase letters', () => {
    expect(isTokenId('chbvcnurbkuw')).toBe(true);
    for (const bad of ['CHBVCNURBKUW', 'chbvcnurbku', 'chbvcnurbkuw1', 12, null, undefined, {}]) {
      expect(isTokenId(bad)).toBe(false);
    }
  });

  it('normalizeTokenId lowercases 12 letters of any case and refuses the rest', () => {
    expect(normalizeTokenId('CHBVCnurbkuw')).toBe('chbvcnurbkuw');
    expect(normalizeTokenId('chbvcnurbku')).toBeNull();
    expect(normalizeTokenId('chbvcnurbkü1')).toBeNull();
  });
});
