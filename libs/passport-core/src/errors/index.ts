/**
 * @module @passport/core/errors
 * The error catalogue (stable codes, each with its area and client-safe message) and PassportError.
 * HTTP statuses belong to the HTTP app (its status table and the served OpenAPI document).
 */

// Errors
export {
  ERROR_CATALOGUE,
  DYNAMIC_CODE_PREFIXES,
  catalogueCodeOf,
  describeError,
  type CatalogueCode,
  type ErrorArea,
  type ErrorCode,
  type ErrorDescriptor,
} from './error-catalogue.js';
export { type AreaErrorDescriptor, type AreaErrors } from './area-errors.js';
export { PassportError, isPassportError, type ErrorDetails } from './passport.error.js';
