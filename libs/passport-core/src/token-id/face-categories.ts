/**
 * @module token-id/face-categories
 * The facial description table encoded in a token id (docs/protocol.md §1): 11 categories in id order,
 * each with its value list, and the per-position letter alphabets. Two generations of real ids use
 * different even-position letters; both maps are accepted and never conflict.
 */

export interface FaceCategory {
  readonly name: string;
  readonly values: readonly string[];
}

/** Frozen through (a caller's edit would change every face decoded in the process). */
const frozenCategories = (categories: FaceCategory[]): readonly FaceCategory[] =>
  Object.freeze(categories.map((c) => Object.freeze({ ...c, values: Object.freeze([...c.values]) })));

// prettier-ignore
export const FACE_CATEGORIES: readonly FaceCategory[] = frozenCategories([
  { name: 'overall_structure', values: ['masculine', 'feminine', 'androgynous'] },
  { name: 'face_shape', values: ['oval-faced', 'round-faced', 'square-faced', 'rectangular-faced', 'heart-shaped-face', 'diamond-shaped-face', 'pear-shaped-face'] },
  { name: 'age_related', values: ['teenage', 'young-adult', 'middle-aged', 'senior'] },
  { name: 'regional_bone_structure', values: ['Nordic', 'Mediterranean', 'Slavic', 'East-Asian', 'Southeast-Asian', 'South-Asian', 'West-African', 'East-African', 'Native-American', 'Polynesian', 'Middle-Eastern', 'Central-Asian'] },
  { name: 'lips', values: ['thin-lips', 'full-lips', 'bow-shaped-lips', 'wide-lips', 'downturned-lips'] },
  { name: 'hair_color', values: ['black-hair', 'brown-hair', 'auburn-hair', 'red-hair', 'blonde-hair', 'gray-hair', 'white-hair', 'bald'] },
  { name: 'eyebrow_style', values: ['thick-eyebrows', 'thin-eyebrows', 'arched-eyebrows', 'straight-eyebrows', 'unibrow'] },
  { name: 'eyes', values: ['deep-set-eyes', 'prominent-eyes', 'close-set-eyes', 'wide-set-eyes', 'almond-shaped-eyes', 'upturned-eyes', 'downturned-eyes', 'monolid-eyes', 'hooded-eyes', 'round-eyes'] },
  { name: 'skin_conditions', values: ['freckled', 'scarred', 'wrinkled', 'clear', 'pockmarked'] },
  { name: 'skin_tones', values: ['fair-skinned', 'golden-skinned', 'olive-skinned', 'bronze-skinned', 'brown-skinned', 'dark-skinned', 'ruddy-skinned'] },
  { name: 'nose', values: ['straight-nose', 'aquiline-nose', 'upturned-nose', 'bulbous-nose', 'flat-bridged-nose', 'pinched-nose'] },
]);

/** Current even-position alphabet (positions 0, 2, …, 10): letter at index i encodes index i. */
export const EVEN_ALPHABET = 'bcaeug';

/** Older even-position letters still found in real ids: l=2, s=3, z=4. */
export const LEGACY_EVEN_LETTERS: Readonly<Record<string, number>> = Object.freeze({ l: 2, s: 3, z: 4 });

/** Odd-position alphabet (positions 1, 3, …, 11, the checksum included): d=0 … y=14. */
export const ODD_ALPHABET = 'dfhjkmnpqrtvwxy';

/** Number of category letters; the 12th letter is the checksum. */
export const FACE_CATEGORY_COUNT = 11;
