/**
 * @module auth/session.errors
 * The codes of the JWT and privileged tiers: bearer validation, permissions, and the sessions and
 * metrics the privileged tier reads. Stable wire contracts.
 */
import { type AreaErrors } from '../errors/area-errors.js';

export const SESSION_ERRORS = {
  MISSING_TOKEN: { message: 'Authorization: Bearer <jwt_token> is required.' },
  INVALIDATED_TOKEN: {
    message: 'The bearer token is invalid, expired or its session is closed. Log in again.',
  },
  PERMISSION_DENIED: { message: 'This passport is not permitted to call this route.' },
  SESSION_NOT_FOUND: { message: 'No session has this id.' },
  SESSIONS_RETRIEVE_FAILED: { message: 'The sessions could not be retrieved.' },
  SESSION_CLEANUP_FAILED: { message: 'The expired sessions could not be cleaned up.' },
  SESSION_TERMINATION_FAILED: { message: 'The session could not be terminated.' },
  SESSION_CAPACITY_REACHED: { message: 'The service holds as many open sessions as it allows. Retry later.' },
  METRICS_FAILED: { message: 'The metrics could not be collected.' },
} as const satisfies AreaErrors;
