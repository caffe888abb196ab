/**
 * @module @passport/core/signclient
 * Minting: the fee rules and the family signing of new passports.
 */

// Fees
export {
  computeMintFee,
  assertFeeMatches,
  parseClientFee,
  impliedTier,
  MINT_TIERS,
  COLLECTIBLE_FEE,
  ENTERPRISE_MAX_REQUESTS,
  ENTERPRISE_YEARLY_FEE,
  FEE_TOLERANCE,
  PERSONAL_MIN_FEE,
  PERSONAL_RATE,
  type MintFee,
  type MintFeeInputs,
  type MintTier,
} from './mint-fee.js';

// Signing new passports
export {
  UNPRIVILEGED_MAX_REQUESTS,
  signClient,
  ANONYMOUS_SIGNCLIENT_CALLER,
  type SignClientCaller,
  validateSignClientRequest,
  assertTokenIdUnminted,
  type SignClientDeps,
  type SignClientRequest,
  type SignClientResult,
} from './sign-client.js';
