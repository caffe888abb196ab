/**
 * @module delegation/subagent-verification
 * The relying party's one call for a subagent (docs/protocol.md §6): a subagent line verifies with the key
 * embedded in it; only the issuer's owner can say that key may act for the passport. So the line's
 * verify result, the delegation check result and the line itself must agree: the line verified and is
 * a subagent line, the delegation is authorized, and issuer, delegate id and key are the same in both.
 *
 * Pure: `compareSubagent` takes the two results; `verifySubagent` takes the two remote calls as
 * injected functions (HTTP, MCP or in-process), never fetching by itself. Delegate ids compare
 * case-insensitively because HOLA lines are (the parser uppercases them).
 */
import { encodeBase32 } from '../codecs/base32.codec.js';
import { bytesEqual } from '../codecs/utf8.codec.js';
import { parseHola } from '../hola/hola.parser.js';
import {
  type DelegationCheckResult,
  type DelegationRequest,
  type DelegationRequestBody,
  validateDelegationRequest,
} from './delegation.js';

/** The fields of a verify result (`POST /api/identity/verify` 200) this check reads. */
export interface HolaVerdict {
  readonly verified: boolean;
  readonly failureReasons?: readonly string[];
}

export type SubagentMismatch =
  | 'hola_not_verified'
  | 'not_a_subagent_line'
  | 'delegation_not_authorized'
  | 'issuer_mismatch'
  | 'delegate_id_mismatch'
  | 'public_key_mismatch';

export interface SubagentVerification {
  readonly valid: boolean;
  readonly issuerTokenId: string | null;
  readonly delegateId: string | null;
  /** The key embedded in the line, base32 as in the line. */
  readonly subagentPublicKeyBase32: string | null;
  readonly reasons: SubagentMismatch[];
}

export interface SubagentInput {
  /** The subagent's HOLA line. */
  readonly hola: string;
  /** The deployment's SERVICE_HOST the line names. */
  readonly serviceHost: string;
  /** The delegation the subagent presented (owner-signed). */
  readonly delegation: DelegationRequestBody;
}

/** Compares the line, its verify result and the delegation check of the delegation it presented. */
export function compareSubagent(
  input: SubagentInput,
  holaResult: HolaVerdict,
  delegationResult: DelegationCheckResult,
): SubagentVerification {
  const reasons: SubagentMismatch[] = [];
  if (holaResult.verified !== true) reasons.push('hola_not_verified');
  if (delegationResult.authorized !== true) reasons.push('delegation_not_authorized');

  const parsed = parseHola(input.hola, { serviceHost: input.serviceHost });
  const line = parsed.ok && parsed.line.form === 'subagent' ? parsed.line : null;
  if (!line || !line.subagentPublicKey || !line.delegateId) {
    reasons.push('not_a_subagent_line');
    return { valid: false, issuerTokenId: null, delegateId: null, subagentPublicKeyBase32: null, reasons };
  }

  const delegation = validatedOrNull(input.delegation);
  // The result must be about the delegation presented, and the delegation about this line.
  if (
    !delegation ||
    delegationResult.tokenId !== delegation.tokenId ||
    delegationResult.base64HashOrDelegateSignerId !== delegation.base64HashOrDelegateSignerId
  ) {
    if (!reasons.includes('delegation_not_authorized')) reasons.push('delegation_not_authorized');
  }
  if (!delegation || delegation.tokenId !== line.senderTokenId) reasons.push('issuer_mismatch');
  if (
    !delegation ||
    delegation.base64HashOrDelegateSignerId.toUpperCase() !== line.delegateId.toUpperCase()
  ) {
    reasons.push('delegate_id_mismatch');
  }
  if (!delegation || !bytesEqual(delegation.publicKeyBytes, line.subagentPublicKey))
    reasons.push('public_key_mismatch');

  return {
    valid: reasons.length === 0,
    issuerTokenId: line.senderTokenId,
    delegateId: line.delegateId,
    subagentPublicKeyBase32: encodeBase32(line.subagentPublicKey),
    reasons,
  };
}

/** Runs both checks through the injected calls, then compares. */
export async function verifySubagent(
  calls: {
    readonly verifyHola: (hola: string) => Promise<HolaVerdict>;
    readonly isAuthorizedSigner: (body: DelegationRequestBody) => Promise<DelegationCheckResult>;
  },
  input: SubagentInput,
): Promise<SubagentVerification> {
  const [holaResult, delegationResult] = await Promise.all([
    calls.verifyHola(input.hola),
    calls.isAuthorizedSigner(input.delegation),
  ]);
  return compareSubagent(input, holaResult, delegationResult);
}

/** A malformed delegation cannot match anything: null instead of the validation error. */
function validatedOrNull(body: DelegationRequestBody): DelegationRequest | null {
  try {
    return validateDelegationRequest(body);
  } catch {
    return null;
  }
}
