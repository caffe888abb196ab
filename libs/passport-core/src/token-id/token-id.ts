/**
 * @module token-id/token-id
 * The passport token id as JSON carries it: 12 lowercase letters (docs/protocol.md §1). HOLA lines carry it
 * uppercase; lookups lowercase it first.
 */

/** The library's own copy: an exported RegExp can be changed in place (`compile`), even frozen. */
const LOWERCASE_TOKEN_ID = /^[a-z]{12}$/;

/** A 12-lowercase-letter token id, for callers' own checks (the library's functions do not read it). */
export const TOKEN_ID_PATTERN: RegExp = Object.freeze(new RegExp(LOWERCASE_TOKEN_ID.source));

const ANY_CASE_TOKEN_ID = /^[a-zA-Z]{12}$/;

/** True for a 12-lowercase-letter token id (the JSON form). */
export function isTokenId(s: unknown): s is string {
  return typeof s === 'string' && LOWERCASE_TOKEN_ID.test(s);
}

/** 12 letters in any case → lowercase token id; anything else → null. */
export function normalizeTokenId(s: string): string | null {
  return typeof s === 'string' && ANY_CASE_TOKEN_ID.test(s) ? s.toLowerCase() : null;
}
