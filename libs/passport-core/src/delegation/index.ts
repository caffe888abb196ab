/**
 * @module @passport/core/delegation
 * Delegated (subagent) signers: signing and checking a delegation, verifying a subagent's HOLA facts.
 */

// Delegations
export {
  signDelegation,
  checkDelegation,
  validateDelegationRequest,
  delegationMessage,
  DELEGATE_ID_MAX_LENGTH,
  type DelegationCheckDeps,
  type DelegationCheckResult,
  type DelegationFailureReason,
  type DelegationRequest,
  type DelegationRequestBody,
} from './delegation.js';
export {
  verifySubagent,
  type HolaVerdict,
  type SubagentInput,
  type SubagentMismatch,
  type SubagentVerification,
} from './subagent-verification.js';
