/**
 * @module federation/federated-token.checks
 * The client library's checks on a token a server minted (spec "Federation"; docs/protocol.md §3). The
 * caller verifies the JWT signature with its JWT library (alg pinned to EdDSA) and passes the
 * decoded header, the claims and the key that verified; these checks then decide whether that
 * token and the server passport behind it are acceptable. They throw client-side PassportErrors.
 *
 * Federated token (`checkFederatedClaims`), only when `passport_subjectuniqueidentifier_url` is a
 * non-empty string: `FEDERATED_ISSUER_MISSING` when `iss` is empty; `FEDERATED_ISSUER_MISMATCH`
 * when the federated claim is not the API the client meant to call or `iss` is not its home URL.
 *
 * Server passport (`checkServerPassport`), in this order: `SERVER_TOKEN_IDENTITY_MISMATCH` (no such
 * passport, `passport_id`/`aud` are not it and its owner, `alg` is not EdDSA, the verifying key is
 * not its owner's, or `passport_idsignature` is missing (`details.reason`
 * `passport_idsignature_missing`) or is not that key's Ed25519 signature over UTF-8
 * `passport_id + new Date(iat * 1000).toISOString()` (`passport_idsignature_invalid`)),
 * `SERVER_PASSPORT_FAMILY_MISMATCH`, `SERVER_PASSPORT_NOT_LIVE`,
 * `SERVER_PASSPORT_REVOKED`, `SERVER_SMART_CONTRACT_NOT_TRUSTED`.
 */
import { decodeBase64Url } from '../codecs/base64url.codec.js';
import { bytesEqual } from '../codecs/utf8.codec.js';
import { type ErrorCode } from '../errors/error-catalogue.js';
import { PassportError } from '../errors/passport.error.js';
import { checkFamilyMembership } from '../family/family-membership.js';
import { parseServiceProviderId, sharedFamilyRoots } from '../family/serviceprovider-id.js';
import { resolveOwnerKeys } from '../passport/owner-keys.js';
import { isContractTrusted, isPassportLive, isPassportRevoked } from '../passport/passport-conditions.js';
import { type PassportRecord } from '../passport/passport.types.js';
import { passportIdSignatureMessage } from '../login/jwt-claims.js';
import { type ChainReader } from '../ports/chain-reader.port.js';
import { type SignatureVerifier } from '../ports/signature-verifier.port.js';
import { isNonEmptyString, sameApiUrl } from './api-url.js';

export interface DecodedJwt {
  readonly header: Readonly<Record<string, unknown>>;
  readonly claims: Readonly<Record<string, unknown>>;
}

const fail = (code: ErrorCode, details: Record<string, unknown> = {}): never => {
  throw new PassportError(code, { failureReason: code, ...details });
};

/** True when the claims mark a federated login. */
export function isFederatedToken(claims: Readonly<Record<string, unknown>>): boolean {
  return isNonEmptyString(claims.passport_subjectuniqueidentifier_url);
}

/**
 * Checks a federated token's issuer claims; a non-federated token passes untouched.
 * @param intendedApiUrl the API the client logged in to (the token's audience service)
 * @param homeUrl the client's own home URL (its passport's `subjectuniqueidentifier_url`)
 */
export function checkFederatedClaims(
  claims: Readonly<Record<string, unknown>>,
  expected: { readonly intendedApiUrl: string; readonly homeUrl: string },
): void {
  if (!isFederatedToken(claims)) return;
  const federatedUrl = claims.passport_subjectuniqueidentifier_url as string;
  if (!isNonEmptyString(claims.iss)) fail('FEDERATED_ISSUER_MISSING');
  if (!sameApiUrl(federatedUrl, expected.intendedApiUrl))
    fail('FEDERATED_ISSUER_MISMATCH', { claim: 'passport_subjectuniqueidentifier_url' });
  if (!sameApiUrl(claims.iss as string, expected.homeUrl))
    fail('FEDERATED_ISSUER_MISMATCH', { claim: 'iss' });
}

export interface ServerPassportCheckParams {
  readonly chain: ChainReader;
  readonly verifier: SignatureVerifier;
  readonly token: DecodedJwt;
  /** The passport named by the token's `passport_id` (the caller read it from the chain), or null. */
  readonly serverPassport: PassportRecord | null;
  /** The Ed25519 public key that verified the JWT signature. */
  readonly verifiedWithKey: Uint8Array;
  /** The client's own family (`serviceprovider_id`); the server must belong to it. */
  readonly expectedServiceProviderId: string;
  readonly trustedContracts: readonly string[];
}

export async function checkServerPassport(params: ServerPassportCheckParams): Promise<void> {
  const {
    chain,
    verifier,
    token,
    serverPassport,
    verifiedWithKey,
    expectedServiceProviderId,
    trustedContracts,
  } = params;
  const server = serverPassport;
  if (!server) return fail('SERVER_TOKEN_IDENTITY_MISMATCH', { reason: 'server_passport_not_found' });
  if (token.header.alg !== 'EdDSA') fail('SERVER_TOKEN_IDENTITY_MISMATCH', { reason: 'alg' });
  if (token.claims.passport_id !== server.tokenId)
    fail('SERVER_TOKEN_IDENTITY_MISMATCH', { reason: 'passport_id' });
  if (token.claims.aud !== server.ownerId) fail('SERVER_TOKEN_IDENTITY_MISMATCH', { reason: 'aud' });
  const ownerKeys = await resolveOwnerKeys(chain, server.ownerId);
  if (!ownerKeys.some((key) => bytesEqual(key, verifiedWithKey)))
    fail('SERVER_TOKEN_IDENTITY_MISMATCH', { reason: 'signing_key' });
  checkPassportIdSignature(verifier, token.claims, server.tokenId, verifiedWithKey);

  // The server must be of the client's family: sharing a root with it, and vouched for by that root.
  const expected = parseServiceProviderId(expectedServiceProviderId);
  const claimed = parseServiceProviderId(server.metadata.serviceprovider_id);
  if (!expected || !claimed || sharedFamilyRoots(expected, claimed).length === 0) {
    fail('SERVER_PASSPORT_FAMILY_MISMATCH', { reason: 'serviceprovider_id' });
  }
  const membership = await checkFamilyMembership({
    chain,
    verifier,
    family: expected!,
    metadata: server.metadata,
    tokenId: server.tokenId,
  });
  if (!membership.member) fail('SERVER_PASSPORT_FAMILY_MISMATCH', { reason: 'family_signature_invalid' });

  if (!isPassportLive(server.metadata, await chain.chainTimeMs())) fail('SERVER_PASSPORT_NOT_LIVE');
  if (isPassportRevoked(server)) fail('SERVER_PASSPORT_REVOKED');
  if (!isContractTrusted(server, trustedContracts)) fail('SERVER_SMART_CONTRACT_NOT_TRUSTED');
}

const MAX_DATE_SECONDS = 8_640_000_000_000;

/** `passport_idsignature`: the server key's signature over its token id and the token's `iat`. */
function checkPassportIdSignature(
  verifier: SignatureVerifier,
  claims: Readonly<Record<string, unknown>>,
  serverTokenId: string,
  key: Uint8Array,
): void {
  const text = claims.passport_idsignature;
  const signature = typeof text === 'string' ? decodeBase64Url(text) : null;
  const iat = claims.iat;
  // The signed text holds iat as an ISO date: beyond Date's range (±8.64e12 s) there is none, and an
  // iat of 1e13 would make the check throw RangeError instead of answering.
  if (
    !signature ||
    typeof iat !== 'number' ||
    !Number.isSafeInteger(iat) ||
    Math.abs(iat) > MAX_DATE_SECONDS
  ) {
    fail('SERVER_TOKEN_IDENTITY_MISMATCH', { reason: 'passport_idsignature_missing' });
  }
  const valid =
    signature!.length === 64 &&
    verifier.verify(signature!, passportIdSignatureMessage(serverTokenId, iat as number), key) === true;
  if (!valid) fail('SERVER_TOKEN_IDENTITY_MISMATCH', { reason: 'passport_idsignature_invalid' });
}
