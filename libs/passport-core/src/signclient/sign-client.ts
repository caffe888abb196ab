/**
 * @module signclient/sign-client
 * `POST /api/signclient` (resolutions §4): validates `{tobesignedValues, mintingfee, token_id?, tier?}`,
 * checks the client's fee against the server's, and signs the metadata into the family with the
 * family root key (`serviceprovider_signature`, resolutions §3 Family, via family/family-signature).
 *
 * Decisions:
 * - `tobesignedValues` is an object of string values (metadata is strings on chain); `token_id` from
 *   the body fills `tobesignedValues.token_id` when that is absent and must equal it when present;
 *   both must be 12-letter token ids when given.
 * - When the server knows its family (`serviceProviderId`), the signed metadata carries it: filled in
 *   when absent, and a different one is refused (the root key signs only into its own family).
 * - The answer returns the exact metadata signed, so the client mints precisely what was signed.
 * Validation failures are 400 `SIGNCLIENT_INVALID_REQUEST` `{field, reason}`; a failing signer is
 * 500 `SIGNCLIENT_FAILED` (no upstream text).
 */
import { PassportError } from '../errors/passport.error.js';
import { signFamilyMetadata } from '../family/family-signature.js';
import { type Signer } from '../ports/signature-verifier.port.js';
import { type Clock } from '../ports/clock.port.js';
import { isTokenId } from '../token-id/token-id.js';
import {
  MINT_TIERS,
  assertFeeMatches,
  computeMintFee,
  parseClientFee,
  signClientInvalid,
  type MintTier,
} from './mint-fee.js';

export interface SignClientDeps {
  /** The family root's key (from `FAMILY_CREDENTIALS_FILE`). */
  readonly familySigner: Signer;
  readonly clock: Clock;
  /** This server's `serviceprovider_id`, when known. */
  readonly serviceProviderId?: string;
}

export interface SignClientRequest {
  readonly tobesignedValues: Record<string, string>;
  readonly clientFee: number;
  readonly tier?: MintTier;
}

export interface SignClientResult {
  readonly serviceprovider_signature: string;
  readonly metadata: Record<string, string>;
  readonly fee_data: {
    readonly tier: MintTier;
    readonly fee: number;
    readonly clientFee: number;
    readonly daysUntilExpiry: number | null;
  };
}

/** Validates the raw body (in field order: body, tobesignedValues, token_id, tier, mintingfee). */
export function validateSignClientRequest(body: unknown, serviceProviderId?: string): SignClientRequest {
  if (!isPlainObject(body)) throw signClientInvalid('body', 'must be a JSON object');
  const values = body.tobesignedValues;
  if (values === undefined || values === null) throw signClientInvalid('tobesignedValues', 'missing');
  if (!isPlainObject(values)) throw signClientInvalid('tobesignedValues', 'must be an object');
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    if (key === '__proto__') throw signClientInvalid('tobesignedValues.__proto__', 'is not a metadata key');
    if (typeof value !== 'string')
      throw signClientInvalid(`tobesignedValues.${key}`.slice(0, 80), 'must be a string');
    metadata[key] = value;
  }
  if (metadata.token_id !== undefined && !isTokenId(metadata.token_id)) {
    throw signClientInvalid('tobesignedValues.token_id', 'must be 12 lowercase letters');
  }
  if (body.token_id !== undefined && body.token_id !== null) {
    if (!isTokenId(body.token_id)) throw signClientInvalid('token_id', 'must be 12 lowercase letters');
    if (metadata.token_id !== undefined && metadata.token_id !== body.token_id) {
      throw signClientInvalid('token_id', 'differs from tobesignedValues.token_id');
    }
    metadata.token_id = body.token_id;
  }
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
  return tier === undefined
    ? { tobesignedValues: metadata, clientFee }
    : { tobesignedValues: metadata, clientFee, tier };
}

/** Validates, checks the fee and signs. */
export function signClient(body: unknown, deps: SignClientDeps): SignClientResult {
  const request = validateSignClientRequest(body, deps.serviceProviderId);
  const fee = computeMintFee(request.tobesignedValues, { tier: request.tier, nowMs: deps.clock.nowMs() });
  assertFeeMatches(request.clientFee, fee.fee);
  let signature: string;
  try {
    signature = signFamilyMetadata(request.tobesignedValues, deps.familySigner);
  } catch {
    throw new PassportError('SIGNCLIENT_FAILED');
  }
  return {
    serviceprovider_signature: signature,
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
