/**
 * @module token-id/face.decoder
 * Decodes the facial description carried by a token id (11 category letters + 1 checksum letter,
 * docs/protocol.md §1) and builds ids from category indices (the dev family and the CLI's mint use it).
 */
import {
  EVEN_ALPHABET,
  FACE_CATEGORIES,
  FACE_CATEGORY_COUNT,
  LEGACY_EVEN_LETTERS,
  ODD_ALPHABET,
} from './face-categories.js';

export interface FaceCategoryValue {
  readonly index: number;
  readonly letter: string;
  /** null when the index is past the end of the category's value list. */
  readonly value: string | null;
}

export interface Face {
  readonly checksumValid: boolean;
  readonly categories: Record<string, FaceCategoryValue>;
}

const EVEN_INDEX: Readonly<Record<string, number>> = (() => {
  const map: Record<string, number> = { ...LEGACY_EVEN_LETTERS };
  for (let i = 0; i < EVEN_ALPHABET.length; i++) map[EVEN_ALPHABET[i]] = i;
  return map;
})();

/** Index of `letter` at id position `position`, or -1 when the letter is outside that position's alphabet. */
function letterIndex(letter: string, position: number): number {
  if (position % 2 === 0) {
    return Object.prototype.hasOwnProperty.call(EVEN_INDEX, letter) ? EVEN_INDEX[letter] : -1;
  }
  return ODD_ALPHABET.indexOf(letter);
}

/** The checksum letter for 11 category indices: odd alphabet at (sum mod 15). */
export function faceChecksumLetter(indices: number[]): string {
  const sum = indices.reduce((acc, n) => acc + n, 0);
  return ODD_ALPHABET[sum % ODD_ALPHABET.length];
}

/**
 * The face of a token id; null when the id is not 12 lowercase letters or any letter is outside its
 * position's alphabet. `checksumValid` says whether the 12th letter matches the 11 indices.
 */
export function decodeFace(tokenId: string): Face | null {
  if (typeof tokenId !== 'string' || !/^[a-z]{12}$/.test(tokenId)) return null;
  const indices: number[] = [];
  const categories: Record<string, FaceCategoryValue> = {};
  for (let position = 0; position < FACE_CATEGORY_COUNT; position++) {
    const letter = tokenId[position];
    const index = letterIndex(letter, position);
    if (index < 0) return null;
    const category = FACE_CATEGORIES[position];
    indices.push(index);
    categories[category.name] = { index, letter, value: category.values[index] ?? null };
  }
  const checksum = tokenId[FACE_CATEGORY_COUNT];
  if (letterIndex(checksum, FACE_CATEGORY_COUNT) < 0) return null;
  return { checksumValid: checksum === faceChecksumLetter(indices), categories };
}

/** Largest index each position's alphabet can encode with the current letters. */
function maxIndexAt(position: number): number {
  return position % 2 === 0 ? EVEN_ALPHABET.length - 1 : ODD_ALPHABET.length - 1;
}

/**
 * 11 category indices → 12-letter token id with a valid checksum, using the current even alphabet.
 * Throws RangeError for a wrong count or an index the position cannot encode.
 */
export function tokenIdFromFaceIndices(indices: number[]): string {
  if (!Array.isArray(indices) || indices.length !== FACE_CATEGORY_COUNT) {
    throw new RangeError(`expected ${FACE_CATEGORY_COUNT} face indices`);
  }
  let id = '';
  indices.forEach((index, position) => {
    if (!Number.isInteger(index) || index < 0 || index > maxIndexAt(position)) {
      throw new RangeError(`face index ${index} cannot be encoded at position ${position}`);
    }
    id += position % 2 === 0 ? EVEN_ALPHABET[index] : ODD_ALPHABET[index];
  });
  return id + faceChecksumLetter(indices);
}

/**
 * A random token id whose every category has a real value (index within the category's list) and a
 * valid checksum. `random(n)` must return an integer in [0, n); by default `cryptoRandomInt` (the
 * platform's CSPRNG), so that ids do not collide; tests pass a seeded one.
 */
export function randomFaceTokenId(random: (n: number) => number = cryptoRandomInt): string {
  const indices = FACE_CATEGORIES.map((category, position) =>
    random(Math.min(category.values.length, maxIndexAt(position) + 1)),
  );
  return tokenIdFromFaceIndices(indices);
}

/** Uniform integer in [0, n) from `globalThis.crypto.getRandomValues` (rejection sampling, no bias). */
export function cryptoRandomInt(n: number): number {
  if (!Number.isInteger(n) || n <= 0 || n > 2 ** 32) throw new RangeError('n must be an integer in 1..2^32');
  const limit = Math.floor(2 ** 32 / n) * n;
  const buffer = new Uint32Array(1);
  for (;;) {
    globalThis.crypto.getRandomValues(buffer);
    if (buffer[0] < limit) return buffer[0] % n;
  }
}
