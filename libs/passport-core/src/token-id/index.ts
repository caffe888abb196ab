/**
 * @module @passport/core/token-id
 * 12-letter token ids and the faces they encode.
 */

// Token ids
export { isTokenId, normalizeTokenId, TOKEN_ID_PATTERN } from './token-id.js';

// Faces
export {
  decodeFace,
  randomFaceTokenId,
  tokenIdFromFaceIndices,
  faceChecksumLetter,
  cryptoRandomInt,
  type Face,
  type FaceCategoryValue,
} from './face.decoder.js';
export {
  FACE_CATEGORIES,
  FACE_CATEGORY_COUNT,
  EVEN_ALPHABET,
  ODD_ALPHABET,
  LEGACY_EVEN_LETTERS,
  type FaceCategory,
} from './face-categories.js';
