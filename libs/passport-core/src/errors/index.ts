/**
 * @module @passport/core/errors
 * The error catalogue (stable codes, HTTP statuses, messages) and PassportError.
 */

// Errors
export {
  ERROR_CATALOGUE,
  DYNAMIC_CODE_PREFIXES,
  describeError,
  type CatalogueCode,
  type ErrorCode,
  type ErrorDescriptor,
} from './error-catalogue.js';
export { PassportError, isPassportError, type ErrorDetails } from './passport.error.js';
