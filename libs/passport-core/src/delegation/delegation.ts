/**
 * @module delegation/delegation
 * Delegated (subagent) signers, `POST /api/isauthorizedsigner` (docs/protocol.md §4, §6). The owner of a
 * passport signs UTF-8 `tokenId:delegateId:unixTimestamp:publicKey` (each as sent; `publicKey` in the
 * text exactly as sent, base64url or base64) to say "this key may sign HOLA lines for me as
 * `delegateId`". Delegation is stateless: the check reads the passport and its current owner keys from
 * the chain, so transferring the passport revokes every delegation its old owner signed.
 *
 * Validation (400 `ISAUTHORIZEDSIGNER_<FIELD>_<PROBLEM>`, fields checked in this order):
 *   TOKENID                        MISSING | INVALID (not 12 lowercase letters)
 *   BASE64HASHORDELEGATESIGNERID   MISSING | INVALID (not a string) | INVALID_LENGTH (not 1..128)
 *   UNIXTIMESTAMP                  MISSING | INVALID (not a JSON integer ≥ 0; strings refused, so the
 *                                  signed text has one spelling)
 *   PUBLICKEY                      MISSING | INVALID (not a string) | DECODE_FAILED | INVALID_LENGTH (≠ 32 bytes)
 *   SIGNATURE                      MISSING | INVALID | DECODE_FAILED | INVALID_LENGTH (≠ 64 bytes)
 * A body that is not a JSON object is `ISAUTHORIZEDSIGNER_BODY_INVALID`. `unixTimestamp` records
 * when the owner signed; §4 sets no expiry, so the check does not age it (a relying party may).
 */
import { decodeBase64Flexible, encodeBase64Url } from '../codecs/base64url.codec.js';
import { utf8 } from '../codecs/utf8.codec.js';
import { hasUnprintable } from '../codecs/printable-text.js';
import { isLineDelegateId } from '../hola/delegate-id.js';
import { PassportError } from '../errors/passport.error.js';
import { resolveOwnerKeys } from '../passport/owner-keys.js';
import { isPassportLive, isPassportRevoked } from '../passport/passport-conditions.js';
import { type ChainReader } from '../ports/chain-reader.port.js';
import { type SignatureVerifier, type Signer } from '../ports/signature-verifier.port.js';
import { isTokenId } from '../token-id/token-id.js';

export const DELEGATE_ID_MAX_LENGTH = 128;

/** The JSON body of `POST /api/isauthorizedsigner`. */
export interface DelegationRequestBody {
  readonly tokenId: string;
  readonly base64HashOrDelegateSignerId: string;
  readonly unixTimestamp: number;
  /** base64url or base64 of the 32-byte delegated key, exactly as signed. */
  readonly publicKey: string;
  /** base64url or base64 of the owner's 64-byte signature. */
  readonly signature: string;
}

/** A validated request: the body plus the decoded key and signature. */
export interface DelegationRequest extends DelegationRequestBody {
  readonly publicKeyBytes: Uint8Array;
  readonly signatureBytes: Uint8Array;
}

export type DelegationFailureReason =
  'token_revoked' | 'token_not_live' | 'owner_keys_unavailable' | 'signature_invalid';

export interface DelegationCheckResult {
  readonly authorized: boolean;
  readonly tokenId: string;
  readonly base64HashOrDelegateSignerId: string;
  readonly checks: {
    readonly tokenExists: boolean;
    readonly tokenActive: boolean;
    readonly publicKeyAuthorized: boolean;
  };
  readonly failureReasons: DelegationFailureReason[];
}

export interface DelegationCheckDeps {
  readonly chain: ChainReader;
  readonly verifier: SignatureVerifier;
}

/** The text the owner signs: `tokenId:delegateId:unixTimestamp:publicKey`. */
export function delegationMessage(
  body: Pick<
    DelegationRequestBody,
    'tokenId' | 'base64HashOrDelegateSignerId' | 'unixTimestamp' | 'publicKey'
  >,
): string {
  return `${body.tokenId}:${body.base64HashOrDelegateSignerId}:${body.unixTimestamp}:${body.publicKey}`;
}

/** Builds a signed delegation for a client or the CLI; the key is written as unpadded base64url. */
export function signDelegation(params: {
  tokenId: string;
  delegateId: string;
  unixTimestamp: number;
  delegatePublicKey: Uint8Array;
  ownerSigner: Signer;
}): DelegationRequestBody {
  if (params.delegatePublicKey.length !== 32) throw new RangeError('the delegated key must be 32 bytes');
  const unsigned = {
    tokenId: params.tokenId,
    base64HashOrDelegateSignerId: params.delegateId,
    unixTimestamp: params.unixTimestamp,
    publicKey: encodeBase64Url(params.delegatePublicKey),
  };
  // Validate what we are about to sign, so a CLI never produces a body the server refuses.
  validateDelegationRequest({ ...unsigned, signature: encodeBase64Url(new Uint8Array(64)) });
  const signature = encodeBase64Url(params.ownerSigner.sign(utf8(delegationMessage(unsigned))));
  return { ...unsigned, signature };
}

/** Validates a raw body; throws the first `ISAUTHORIZEDSIGNER_<FIELD>_<PROBLEM>` in field order. */
export function validateDelegationRequest(body: unknown): DelegationRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw fieldError('BODY', 'INVALID');
  const raw = body as Record<string, unknown>;

  const tokenId = raw.tokenId;
  if (isAbsent(tokenId)) throw fieldError('TOKENID', 'MISSING');
  if (!isTokenId(tokenId)) throw fieldError('TOKENID', 'INVALID');

  const delegateId = raw.base64HashOrDelegateSignerId;
  if (isAbsent(delegateId)) throw fieldError('BASE64HASHORDELEGATESIGNERID', 'MISSING');
  // A lone surrogate is encoded as U+FFFD, so ids differing only there would share one signed message;
  // controls and format characters (NUL, ESC, bidi overrides), a `/` or nothing visible, which no HOLA
  // line may carry (the parser's rules): such a delegation could never be used.
  if (typeof delegateId !== 'string' || hasUnprintable(delegateId) || !isLineDelegateId(delegateId)) {
    throw fieldError('BASE64HASHORDELEGATESIGNERID', 'INVALID');
  }
  // Counted as a line carries it too (uppercased: "ß" is "SS"), or the delegation could never be used.
  if (
    delegateId.length < 1 ||
    delegateId.length > DELEGATE_ID_MAX_LENGTH ||
    delegateId.toUpperCase().length > DELEGATE_ID_MAX_LENGTH
  ) {
    throw fieldError('BASE64HASHORDELEGATESIGNERID', 'INVALID_LENGTH');
  }

  const unixTimestamp = raw.unixTimestamp;
  if (isAbsent(unixTimestamp)) throw fieldError('UNIXTIMESTAMP', 'MISSING');
  if (typeof unixTimestamp !== 'number' || !Number.isSafeInteger(unixTimestamp) || unixTimestamp < 0) {
    throw fieldError('UNIXTIMESTAMP', 'INVALID');
  }

  const publicKey = raw.publicKey;
  const publicKeyBytes = decodeField(publicKey, 'PUBLICKEY', 32);
  const signature = raw.signature;
  const signatureBytes = decodeField(signature, 'SIGNATURE', 64);

  return {
    tokenId,
    base64HashOrDelegateSignerId: delegateId,
    unixTimestamp,
    publicKey: publicKey as string,
    signature: signature as string,
    publicKeyBytes,
    signatureBytes,
  };
}

/**
 * Checks a validated request against the chain: 404 `TOKEN_NOT_FOUND` when the passport does not
 * exist; otherwise every check is computed (so the answer says everything that is wrong) and
 * `authorized` is their conjunction.
 */
export async function checkDelegation(
  deps: DelegationCheckDeps,
  request: DelegationRequest,
): Promise<DelegationCheckResult> {
  const record = await deps.chain.getPassport(request.tokenId);
  if (!record) throw new PassportError('TOKEN_NOT_FOUND', { tokenId: request.tokenId });
  const failureReasons: DelegationFailureReason[] = [];

  const revoked = isPassportRevoked(record);
  const live = isPassportLive(record.metadata, await deps.chain.chainTimeMs());
  if (revoked) failureReasons.push('token_revoked');
  if (!live) failureReasons.push('token_not_live');

  const ownerKeys = await resolveOwnerKeys(deps.chain, record.ownerId);
  const message = utf8(delegationMessage(request));
  const signed = ownerKeys.some((key) => deps.verifier.verify(request.signatureBytes, message, key) === true);
  if (ownerKeys.length === 0) failureReasons.push('owner_keys_unavailable');
  else if (!signed) failureReasons.push('signature_invalid');

  const tokenActive = !revoked && live;
  return {
    authorized: tokenActive && signed,
    tokenId: request.tokenId,
    base64HashOrDelegateSignerId: request.base64HashOrDelegateSignerId,
    checks: { tokenExists: true, tokenActive, publicKeyAuthorized: signed },
    failureReasons,
  };
}

function decodeField(value: unknown, field: 'PUBLICKEY' | 'SIGNATURE', length: number): Uint8Array {
  if (isAbsent(value)) throw fieldError(field, 'MISSING');
  if (typeof value !== 'string') throw fieldError(field, 'INVALID');
  const bytes = decodeBase64Flexible(value);
  if (!bytes) throw fieldError(field, 'DECODE_FAILED');
  if (bytes.length !== length) throw fieldError(field, 'INVALID_LENGTH');
  return bytes;
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

const JSON_FIELD_NAMES: Readonly<Record<string, string>> = {
  BODY: 'body',
  TOKENID: 'tokenId',
  BASE64HASHORDELEGATESIGNERID: 'base64HashOrDelegateSignerId',
  UNIXTIMESTAMP: 'unixTimestamp',
  PUBLICKEY: 'publicKey',
  SIGNATURE: 'signature',
};

function fieldError(
  field: string,
  problem: 'MISSING' | 'INVALID' | 'DECODE_FAILED' | 'INVALID_LENGTH',
): PassportError {
  return new PassportError(`ISAUTHORIZEDSIGNER_${field}_${problem}`, {
    field: JSON_FIELD_NAMES[field],
    problem,
  });
}
