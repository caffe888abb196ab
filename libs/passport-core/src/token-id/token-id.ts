/**
 * @module token-id/token-id
 * The passport token id as JSON carries it: 12 lowercase letters (docs/protocol.md §1). HOLA lines carry it
 * uppercase; lookups lowercase it first.
 */

export const TOKEN_ID_PATTERN = /^[a-z]{12}$/;

const ANY_CASE_TOKEN_ID = /^[a-zA-Z]{12}$/;

/** True for a 12-lowercase-letter token id (the JSON form). */
export function isTokenId(s: unknown): s is string {
  return typeof s === 'string' && TOKEN_ID_PATTERN.test(s);
}

/** 12 letters in any case → lowercase token id; anything else → null. */
export function normalizeTokenId(s: string): string | null {
  return typeof s === 'string' && ANY_CASE_TOKEN_ID.test(s) ? s.toLowerCase() : null;
}
