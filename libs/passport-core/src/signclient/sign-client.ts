/**
 * @module signclient/sign-client
 * `POST /api/signclient` (docs/protocol.md §4): validates `{tobesignedValues, mintingfee, token_id?, tier?}`,
 * checks the client's fee against the server's, and signs the metadata into the family with the
 * family root key (`serviceprovider_signature`, docs/protocol.md §3 Family, via family/family-signature).
 *
 * Decisions:
 * - `tobesignedValues` is an object of string values (metadata is strings on chain). The token id
 *   comes from the body's `token_id` or `tobesignedValues.token_id` (equal when both are given) and is
 *   required: the issuer's signature covers the token's own id, so a signature is bound to the one
 *   token it was made for and cannot be replayed onto another. It is signed, not stored: the metadata
 *   answered (the metadata to mint) carries no `token_id`, as production passports do not.
 * - Privilege is not for sale: unless the caller's JWT is privileged for `/api/signclient`, the
 *   metadata may not name `permissioned_routes` and must carry a positive `max_requests` (absent or
 *   `0` is unlimited for the rate limiter) of at most the enterprise quota, and a `maxrq_window` (when
 *   given) of whole seconds, at least 60 on the flat-fee tiers, which do not price it. Refused with 403
 *   `PERMISSION_DENIED` `{field, reason}`.
 * - When the server knows its family (`serviceProviderId`), the signed metadata carries it: filled in
 *   when absent, and a different one is refused (the root key signs only into its own family).
 * - The answer returns the exact metadata to mint and the token id signed with it; a refusal carries no
 *   signature and no metadata, and the fee mismatch only the two fees.
 * - `not_before` and `not_after`, when given, must be readable (passport-conditions) and in order:
 *   a window that can never be live is refused rather than signed.
 * - Only a token id that is not minted yet is signed for (`assertTokenIdUnminted`, through the chain
 *   port): a signature over new metadata for a passport that exists would let its holder re-sign its
 *   quota or window wherever a contract lets owners update metadata. 409 `SIGNCLIENT_TOKEN_EXISTS`.
 * Validation failures are 400 `SIGNCLIENT_INVALID_REQUEST` `{field, reason}`; a failing signer is
 * 500 `SIGNCLIENT_FAILED` (no upstream text).
 */
import { hasLoneSurrogate } from '../codecs/utf8.codec.js';
import { printableText } from '../codecs/printable-text.js';
import { PassportError } from '../errors/passport.error.js';
import { signFamilyMetadata } from '../family/family-signature.js';
import { type Signer } from '../ports/signature-verifier.port.js';
import { type Clock } from '../ports/clock.port.js';
import { type ChainReader } from '../ports/chain-reader.port.js';
import { parsePassportTimeBound } from '../passport/passport-conditions.js';
import { isTokenId } from '../token-id/token-id.js';
import { isHttpUrl } from '../federation/api-url.js';
import { webhookUrlOf } from '../webhook/webhook-target.js';
import {
  ENTERPRISE_MAX_REQUESTS,
  MINT_TIERS,
  assertFeeMatches,
  computeMintFee,
  impliedTier,
  parseClientFee,
  signClientInvalid,
  type MintTier,
} from './mint-fee.js';

/** Who asks: only a caller privileged for `/api/signclient` may sign privileges or unlimited quotas. */
export interface SignClientCaller {
  readonly privileged: boolean;
}

export const ANONYMOUS_SIGNCLIENT_CALLER: SignClientCaller = Object.freeze({ privileged: false });

export interface SignClientDeps {
  /** The family root's key (from `FAMILY_CREDENTIALS_FILE`). */
  readonly familySigner: Signer;
  readonly clock: Clock;
  /** This server's `serviceprovider_id`, when known. */
  readonly serviceProviderId?: string | undefined;
  readonly caller?: SignClientCaller | undefined;
}

export interface SignClientRequest {
  /** The metadata to mint and sign (no `token_id`: the token id is signed from `tokenId`). */
  readonly tobesignedValues: Record<string, string>;
  readonly tokenId: string;
  readonly clientFee: number;
  readonly tier?: MintTier;
}

export interface SignClientResult {
  readonly serviceprovider_signature: string;
  /** The token id the signature is bound to: mint the metadata under exactly this id. */
  readonly token_id: string;
  readonly metadata: Record<string, string>;
  readonly fee_data: {
    readonly tier: MintTier;
    readonly fee: number;
    readonly clientFee: number;
    readonly daysUntilExpiry: number | null;
  };
}

/**
 * The metadata that names web addresses must name http(s) ones: the passport's home API and its OpenAPI
 * document as absolute URLs, the webhook as a URL or a bare host (https is then assumed). A
 * `javascript:` or `data:` URL signed into a passport would make its federated login issue a token with
 * an `iss` no server accepts.
 */
function assertWebUrls(metadata: Record<string, string>): void {
  for (const key of ['subjectuniqueidentifier_url', 'openapijson_url'] as const) {
    const value = metadata[key];
    if (value !== undefined && value.trim() !== '' && !isHttpUrl(value))
      throw signClientInvalid(`tobesignedValues.${key}`, 'must be an http(s) URL');
  }
  // As the webhook sender reads it: a bare host (or host:port) is https.
  const webhook = metadata.webhook_url?.trim() ?? '';
  if (webhook !== '' && webhookUrlOf(webhook) === null)
    throw signClientInvalid('tobesignedValues.webhook_url', 'must be an http(s) URL or a host');
}

/** Validates the raw body (in field order: body, tobesignedValues, token_id, tier, mintingfee). */
export function validateSignClientRequest(
  body: unknown,
  serviceProviderId?: string,
  caller: SignClientCaller = ANONYMOUS_SIGNCLIENT_CALLER,
): SignClientRequest {
  if (!isPlainObject(body)) throw signClientInvalid('body', 'must be a JSON object');
  const values = body.tobesignedValues;
  if (values === undefined || values === null) throw signClientInvalid('tobesignedValues', 'missing');
  if (!isPlainObject(values)) throw signClientInvalid('tobesignedValues', 'must be an object');
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    if (key === '__proto__') throw signClientInvalid('tobesignedValues.__proto__', 'is not a metadata key');
    if (typeof value !== 'string')
      throw signClientInvalid(printableText(`tobesignedValues.${key}`, 80), 'must be a string');
    // Signed as UTF-8, where every lone surrogate becomes U+FFFD: one signature would fit several texts.
    if (hasLoneSurrogate(key) || hasLoneSurrogate(value))
      throw signClientInvalid(
        printableText(`tobesignedValues.${key}`, 80),
        'must be well-formed text (no lone surrogate)',
      );
    metadata[key] = value;
  }
  if (metadata.token_id !== undefined && !isTokenId(metadata.token_id)) {
    throw signClientInvalid('tobesignedValues.token_id', 'must be 12 lowercase letters');
  }
  assertReadableWindow(metadata);
  assertWebUrls(metadata);
  let tokenId = metadata.token_id;
  delete metadata.token_id;
  if (body.token_id !== undefined && body.token_id !== null) {
    if (!isTokenId(body.token_id)) throw signClientInvalid('token_id', 'must be 12 lowercase letters');
    if (tokenId !== undefined && tokenId !== body.token_id) {
      throw signClientInvalid('token_id', 'differs from tobesignedValues.token_id');
    }
    tokenId = body.token_id;
  }
  if (tokenId === undefined)
    throw signClientInvalid('token_id', 'missing: the signature covers the token id');
  if (serviceProviderId !== undefined) {
    if (metadata.serviceprovider_id === undefined) metadata.serviceprovider_id = serviceProviderId;
    else if (metadata.serviceprovider_id !== serviceProviderId) {
      throw signClientInvalid('tobesignedValues.serviceprovider_id', 'names another family than this server');
    }
  }
  let tier: MintTier | undefined;
  if (body.tier !== undefined && body.tier !== null) {
    if (!MINT_TIERS.includes(body.tier as MintTier))
      throw signClientInvalid('tier', 'must be personal, enterprise or collectible');
    tier = body.tier as MintTier;
  }
  const clientFee = parseClientFee(body.mintingfee);
  if (!caller.privileged) assertNoPrivilegeAsked(metadata, tier ?? impliedTier(metadata));
  return tier === undefined
    ? { tobesignedValues: metadata, tokenId, clientFee }
    : { tobesignedValues: metadata, tokenId, clientFee, tier };
}

/** `not_before` and `not_after` readable when given, and `not_before ≤ not_after` (module doc). */
function assertReadableWindow(metadata: Record<string, string>): void {
  const start = parsePassportTimeBound(metadata.not_before, 'start');
  if (start.kind === 'invalid') throw signClientInvalid('not_before', 'unreadable date');
  const end = parsePassportTimeBound(metadata.not_after, 'end');
  if (end.kind === 'invalid') throw signClientInvalid('not_after', 'unreadable date');
  if (start.kind === 'instant' && end.kind === 'instant' && start.ms > end.ms)
    throw signClientInvalid('not_before', 'is after not_after: the passport would never be live');
}

/**
 * Refuses a token id that is minted already (409 `SIGNCLIENT_TOKEN_EXISTS`): metadata is signed for
 * new passports only. A chain that cannot be read throws as it is (the caller answers 503).
 */
export async function assertTokenIdUnminted(
  chain: Pick<ChainReader, 'getPassport'>,
  tokenId: string,
): Promise<void> {
  if ((await chain.getPassport(tokenId)) !== null)
    throw new PassportError('SIGNCLIENT_TOKEN_EXISTS', { token_id: tokenId });
}

/** An unprivileged caller may neither grant privileged routes nor an unlimited quota or rate. */
function assertNoPrivilegeAsked(metadata: Record<string, string>, tier: MintTier): void {
  if (metadata.permissioned_routes !== undefined && metadata.permissioned_routes.trim() !== '') {
    throw signClientDenied(
      'tobesignedValues.permissioned_routes',
      'only a caller privileged for /api/signclient may grant routes',
    );
  }
  const maxRequests = metadata.max_requests;
  if (maxRequests === undefined || !/^\d{1,15}$/.test(maxRequests) || Number(maxRequests) < 1) {
    throw signClientDenied(
      'tobesignedValues.max_requests',
      'must be a positive integer: an absent or 0 quota is unlimited, which only a caller privileged for /api/signclient may sign',
    );
  }
  // A flat-fee tier (collectible, enterprise) does not price the quota, so without a ceiling a huge
  // max_requests would buy an unlimited quota in all but name. The enterprise quota is the largest sold.
  if (Number(maxRequests) > UNPRIVILEGED_MAX_REQUESTS) {
    throw signClientDenied(
      'tobesignedValues.max_requests',
      `at most ${UNPRIVILEGED_MAX_REQUESTS} (the enterprise quota) unless the caller is privileged for /api/signclient`,
    );
  }
  // The quota is max_requests per maxrq_window seconds (the limiter's window when absent: 60 s). The
  // personal fee prices the window; a flat fee does not, so a short window would buy an unpriced rate
  // (4999 a second for a collectible's 496).
  const window = metadata.maxrq_window;
  if (window !== undefined && (!/^\d{1,15}$/.test(window) || Number(window) < 1)) {
    throw signClientDenied('tobesignedValues.maxrq_window', 'must be a positive integer of seconds');
  }
  if (
    tier !== 'personal' &&
    window !== undefined &&
    Number(window) < UNPRIVILEGED_FLAT_FEE_MIN_WINDOW_SECONDS
  ) {
    throw signClientDenied(
      'tobesignedValues.maxrq_window',
      `at least ${UNPRIVILEGED_FLAT_FEE_MIN_WINDOW_SECONDS} s on the ${tier} tier, whose flat fee does not price the rate, unless the caller is privileged for /api/signclient`,
    );
  }
}

/**
 * The shortest `maxrq_window` an unprivileged caller may have signed on a flat-fee tier: the rate
 * limiter's window for a passport that names none, so naming one never buys a faster rate.
 */
export const UNPRIVILEGED_FLAT_FEE_MIN_WINDOW_SECONDS = 60;

/** The largest `max_requests` an unprivileged caller may have signed: the enterprise tier's quota. */
export const UNPRIVILEGED_MAX_REQUESTS = Number(ENTERPRISE_MAX_REQUESTS);

function signClientDenied(field: string, reason: string): PassportError {
  return new PassportError('PERMISSION_DENIED', { route: '/api/signclient', field, reason });
}

/** Validates, checks the fee and signs. */
export function signClient(body: unknown, deps: SignClientDeps): SignClientResult {
  const request = validateSignClientRequest(body, deps.serviceProviderId, deps.caller);
  const fee = computeMintFee(request.tobesignedValues, { tier: request.tier, nowMs: deps.clock.nowMs() });
  assertFeeMatches(request.clientFee, fee.fee);
  let signature: string;
  try {
    signature = signFamilyMetadata(request.tobesignedValues, request.tokenId, deps.familySigner);
  } catch {
    throw new PassportError('SIGNCLIENT_FAILED');
  }
  return {
    serviceprovider_signature: signature,
    token_id: request.tokenId,
    metadata: request.tobesignedValues,
    fee_data: {
      tier: fee.tier,
      fee: fee.fee,
      clientFee: request.clientFee,
      daysUntilExpiry: fee.daysUntilExpiry,
    },
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
