/**
 * Property laws of token ids and face decoding (docs/protocol.md §1) against a reference decoder written
 * from the table and alphabets of resolutions.md §1.
 */
import fc from 'fast-check';
import { decodeFace, tokenIdFromFaceIndices } from './face.decoder.js';
import { isTokenId, normalizeTokenId } from './token-id.js';

// resolutions.md §1, copied by hand (not imported: the oracle must not share the module's table).
const CATEGORIES: [string, number][] = [
  ['overall_structure', 3],
  ['face_shape', 7],
  ['age_related', 4],
  ['regional_bone_structure', 12],
  ['lips', 5],
  ['hair_color', 8],
  ['eyebrow_style', 5],
  ['eyes', 10],
  ['skin_conditions', 5],
  ['skin_tones', 7],
  ['nose', 6],
];
const EVEN: Record<string, number> = { b: 0, c: 1, a: 2, e: 3, u: 4, g: 5, l: 2, s: 3, z: 4 };
const ODD = 'dfhjkmnpqrtvwxy';

function referenceFace(id: string): { checksumValid: boolean; indices: number[] } | null {
  if (!/^[a-z]{12}$/.test(id)) return null;
  const indices: number[] = [];
  for (let p = 0; p < 11; p++) {
    const i = p % 2 === 0 ? (EVEN[id[p]] ?? -1) : ODD.indexOf(id[p]);
    if (i < 0) return null;
    indices.push(i);
  }
  if (ODD.indexOf(id[11]) < 0) return null;
  return { checksumValid: id[11] === ODD[indices.reduce((a, b) => a + b, 0) % 15], indices };
}

const letters = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz');
const nearId = fc.oneof(
  fc.string({ unit: letters, minLength: 12, maxLength: 12 }),
  fc.string({ unit: fc.constantFrom(...'bcaeuglszdfhjkmnpqrtvwxy'), minLength: 12, maxLength: 12 }),
  fc.string({ unit: fc.constantFrom(...'bcaeugdfhjAZ\u212a\u0131 '), minLength: 10, maxLength: 14 }),
  fc.string({ unit: 'binary', maxLength: 14 }),
);

describe('token id and face laws', () => {
  it('oracle: decodeFace equals a reference decoder written from resolutions.md §1, on any text', () => {
    fc.assert(
      fc.property(nearId, (id) => {
        const face = decodeFace(id);
        const want = referenceFace(id);
        if (want === null) return expect(face).toBeNull();
        expect(face).not.toBeNull();
        expect(face!.checksumValid).toBe(want.checksumValid);
        expect(Object.keys(face!.categories)).toEqual(CATEGORIES.map(([name]) => name));
        CATEGORIES.forEach(([name, count], p) => {
          const c = face!.categories[name];
          expect([c.index, c.letter, c.value === null]).toEqual([
            want.indices[p],
            id[p],
            want.indices[p] >= count,
          ]);
        });
      }),
      { numRuns: 3000 },
    );
  });

  it('canonical form: an id with a valid checksum in the current alphabet is rebuilt from its indices', () => {
    fc.assert(
      fc.property(nearId, (id) => {
        const face = decodeFace(id);
        if (face === null || !face.checksumValid || /[lsz]/.test(id.slice(0, 11))) return;
        expect(tokenIdFromFaceIndices(Object.values(face.categories).map((c) => c.index))).toBe(id);
      }),
      { numRuns: 3000 },
    );
  });

  it('oracle: isTokenId is /^[a-z]{12}$/ and normalizeTokenId lowercases exactly /^[a-zA-Z]{12}$/, on any text', () => {
    fc.assert(
      fc.property(nearId, (s) => {
        expect(isTokenId(s)).toBe(/^[a-z]{12}$/.test(s));
        const n = normalizeTokenId(s);
        expect(n).toBe(/^[a-zA-Z]{12}$/.test(s) ? s.toLowerCase() : null);
        if (n !== null) expect(isTokenId(n)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
