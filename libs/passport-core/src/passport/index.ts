/**
 * @module @passport/core/passport
 * Passport records: liveness, revocation, time bounds, required metadata, owner keys.
 */

// Records and conditions
export { type PassportRecord, type PassportMetadata } from './passport.types.js';
export {
  hasPassportTimeBounds,
  isPassportLive,
  isPassportRevoked,
  isContractTrusted,
  hasRequiredMetadata,
  parsePassportTimeBound,
  passportNotAfterMs,
  REQUIRED_LOGIN_METADATA,
  type PassportTimeBound,
} from './passport-conditions.js';
export { MAX_OWNER_KEYS, resolveOwnerKeys } from './owner-keys.js';
