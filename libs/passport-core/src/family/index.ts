/**
 * @module @passport/core/family
 * Families: service-provider ids, canonical JSON, family signatures of passport metadata, membership.
 */

// Families
export {
  signFamilyMetadata,
  verifyFamilySignature,
  familyMetadataDigest,
  familySignedPayload,
  FAMILY_SIGNED_FIELDS,
  type FamilySignedField,
} from './family-signature.js';
export { checkFamilyMembership, type FamilyMembership } from './family-membership.js';
export { FamilyVerdictCache, type FamilyVerdictCacheOptions } from './family-verdict.cache.js';
export {
  parseServiceProviderId,
  formatServiceProviderId,
  familyRootTokenId,
  sharedFamilyRoots,
  type ServiceProviderId,
} from './serviceprovider-id.js';
export { canonicalJson } from './canonical-json.js';
