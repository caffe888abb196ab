/**
 * The `token:facial-categories` document: the core's face table (docs/protocol.md §1) as JSON, with the
 * letter alphabets and the checksum rule, so an agent can decode a token id without calling the API.
 */
import { decodeFace } from '@passport/core';
import { EVEN_ALPHABET, FACE_CATEGORIES, LEGACY_EVEN_LETTERS, ODD_ALPHABET } from '@passport/core/token-id';

/** A real token id that decodes with a valid checksum (docs/protocol.md §1), shown as a worked example. */
const EXAMPLE_TOKEN_ID = 'lhsrldbjsnlh';

export function facialCategoriesDocument(): Record<string, unknown> {
  return {
    title: 'Facial categories of a passport token id',
    tokenIdPattern: '^[a-z]{12}$',
    layout:
      'Letters 1-11 each encode the index of one category value, in the order below; letter 12 is a checksum. ' +
      'Even positions (0, 2, ..., 10; counting from 0) use the even alphabet, odd positions (1, 3, ..., 11) the odd alphabet.',
    alphabets: {
      even: {
        letters: EVEN_ALPHABET,
        legacy: LEGACY_EVEN_LETTERS,
        note: 'letter at index i encodes i; legacy letters l=2 s=3 z=4 are still accepted',
      },
      odd: { letters: ODD_ALPHABET, note: 'letter at index i encodes i (d=0 ... y=14)' },
    },
    checksum: { position: 11, rule: 'odd alphabet letter at (sum of the 11 indices) mod 15' },
    nullValues:
      'An index past the end of a category list decodes to value null; a letter outside its alphabet makes the whole face null.',
    categories: FACE_CATEGORIES.map((category, position) => ({
      position,
      name: category.name,
      alphabet: position % 2 === 0 ? 'even' : 'odd',
      values: category.values,
    })),
    example: { tokenId: EXAMPLE_TOKEN_ID, face: decodeFace(EXAMPLE_TOKEN_ID) },
  };
}
