/**
 * @module profile/identity.errors
 * The codes of identity reads: a passport's profile by token id, the caller's own, the holders' list.
 * Stable wire contracts.
 */
import { type AreaErrors } from '../errors/area-errors.js';

export const IDENTITY_ERRORS = {
  IDENTITY_SUB_MISSING: { message: 'The token subject is missing or unparsable.' },
  IDENTITY_NOT_FOUND: { message: 'No passport exists for this token id.' },
  IDENTITY_LOOKUP_FAILED: { message: 'The identity could not be looked up.' },
  AGENTS_RETRIEVE_FAILED: { message: 'The passport holders could not be listed.' },
  TOKEN_NOT_FOUND: { message: 'No passport exists for this token id.' },
} as const satisfies AreaErrors;
