/**
 * @module errors/common.errors
 * Codes every area may answer with: request shape, paging and token-id parameters, the per-address and
 * per-passport rate limits, an unavailable dependency, and the unexpected failure. Stable wire contracts.
 */
import { type AreaErrors } from './area-errors.js';

export const COMMON_ERRORS = {
  VALIDATION_FAILED: { message: 'The request does not match the expected shape.' },
  INVALID_QUERY_PARAMETER: { message: 'A query parameter is missing or out of range.' },
  INVALID_TOKEN_ID: { message: 'The token id must be 12 lowercase letters.' },
  RATE_LIMIT_EXCEEDED: { message: 'Rate limit exceeded. Retry after the time given in Retry-After.' },
  INTERNAL_ERROR: { message: 'An internal error occurred.' },
  SERVICE_UNAVAILABLE: { message: 'The service is temporarily unavailable.' },
  AUTH_SERVICE_UNAVAILABLE: { message: 'The authentication service is not available on this instance.' },
} as const satisfies AreaErrors;
