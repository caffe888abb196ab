/**
 * @module family/family-signature
 * The family signature (`metadata.serviceprovider_signature`): the family root key's Ed25519
 * signature, base64url, over the SHA-512 digest of the canonical JSON of the fields below, built the
 * way the production issuer builds it:
 * - `token_id` is the token's own id from the chain record (real passports carry no `metadata.token_id`);
 * - `max_requests` and `maxrq_window` are always present, as `String(value)` (an absent one is the
 *   string "undefined", exactly as the issuer hashes it);
 * - every other field is copied when the metadata has it and dropped when it does not.
 * Other metadata (`webhook_url`, the DN, `revoked`) is deliberately outside the signature, as in
 * production, so that clients keep verifying.
 *
 * Passports written by earlier versions of this service were signed over their own metadata with
 * `metadata.token_id` (equal to the record's id) and absent fields dropped; they still verify, but only
 * when that `metadata.token_id` names this very record, so a signature never moves to another token.
 */
import { sha512 } from '@noble/hashes/sha2.js';
import { decodeBase64Url, encodeBase64Url } from '../codecs/base64url.codec.js';
import { utf8 } from '../codecs/utf8.codec.js';
import { type PassportMetadata } from '../passport/passport.types.js';
import { type SignatureVerifier, type Signer } from '../ports/signature-verifier.port.js';
import { canonicalJson } from './canonical-json.js';

export const FAMILY_SIGNED_FIELDS = Object.freeze([
  'token_id',
  'openapijson_url',
  'not_after',
  'not_before',
  'max_requests',
  'maxrq_window',
  'webhook_cidr',
  'allowed_cidr',
  'allowed_iso3166list',
  'jwt_duration',
  'permissioned_routes',
  'serviceprovider_id',
  'subjectuniqueidentifier_url',
] as const);

export type FamilySignedField = (typeof FAMILY_SIGNED_FIELDS)[number];

/** Fields the issuer always writes with `String(...)`, present or not. */
const STRINGIFIED_FIELDS: ReadonlySet<FamilySignedField> = new Set(['max_requests', 'maxrq_window']);

type MetadataLike = Readonly<Partial<Record<string, unknown>>>;

function own(metadata: MetadataLike, field: string): unknown {
  return Object.prototype.hasOwnProperty.call(metadata, field) ? metadata[field] : undefined;
}

/** The payload the issuer signs for the passport `tokenId` (undefined fields dropped). */
export function familySignedPayload(
  metadata: MetadataLike,
  tokenId: string,
): Partial<Record<FamilySignedField, unknown>> {
  const payload: Partial<Record<FamilySignedField, unknown>> = { token_id: tokenId };
  for (const field of FAMILY_SIGNED_FIELDS) {
    if (field === 'token_id') continue;
    const value = own(metadata, field);
    if (STRINGIFIED_FIELDS.has(field)) payload[field] = String(value);
    else if (value !== undefined) payload[field] = value;
  }
  return payload;
}

/** The payload earlier versions of this service signed: the metadata's own signed fields, as they are. */
function legacySignedPayload(metadata: MetadataLike): Partial<Record<FamilySignedField, unknown>> {
  const payload: Partial<Record<FamilySignedField, unknown>> = {};
  for (const field of FAMILY_SIGNED_FIELDS) {
    const value = own(metadata, field);
    if (value !== undefined) payload[field] = value;
  }
  return payload;
}

/** SHA-512 (64 bytes) of the canonical JSON of the issuer's payload: the message the root key signs. */
export function familyMetadataDigest(metadata: MetadataLike, tokenId: string): Uint8Array {
  return sha512(utf8(canonicalJson(familySignedPayload(metadata, tokenId))));
}

/** `serviceprovider_signature` for the passport `tokenId` with this metadata, signed by the family root. */
export function signFamilyMetadata(metadata: MetadataLike, tokenId: string, signer: Signer): string {
  return encodeBase64Url(signer.sign(familyMetadataDigest(metadata, tokenId)));
}

/** The digests computed for one metadata object, with the signed values they were computed from. */
interface SignedDigests {
  readonly tokenId: string;
  readonly values: readonly unknown[];
  readonly digests: readonly Uint8Array[];
}

/**
 * Digests per metadata object: a passport that logs in again is usually the very record the chain cache
 * returned before, and canonical JSON plus SHA-512 were most of a family check that its verdict cache
 * answers. An entry is used only when every signed field still holds the same primitive value (so a
 * record changed in place is hashed afresh); metadata with a non-primitive signed value is not kept.
 * Weakly held: an entry goes with its record.
 */
const digestsByMetadata = new WeakMap<object, SignedDigests>();

const isPrimitive = (value: unknown): boolean =>
  value === null || (typeof value !== 'object' && typeof value !== 'function');

/** The digests a family root may have signed for `tokenId`: the issuer's, then (if different) the legacy one. */
function signedDigests(metadata: MetadataLike, tokenId: string): readonly Uint8Array[] {
  const values = FAMILY_SIGNED_FIELDS.map((field) => own(metadata, field));
  const known = digestsByMetadata.get(metadata);
  if (known && known.tokenId === tokenId && known.values.every((value, i) => value === values[i]))
    return known.digests;
  const digests = [familyMetadataDigest(metadata, tokenId)];
  if (own(metadata, 'token_id') === tokenId) {
    const legacy = sha512(utf8(canonicalJson(legacySignedPayload(metadata))));
    if (!bytesEqual(legacy, digests[0])) digests.push(legacy);
  }
  if (values.every(isPrimitive)) digestsByMetadata.set(metadata, { tokenId, values, digests });
  return digests;
}

/**
 * True when `metadata.serviceprovider_signature` is a strict base64url 64-byte signature by one of
 * `rootKeys` of the issuer's digest for `tokenId` (or, for passports of earlier versions whose
 * `metadata.token_id` is `tokenId`, of the digest they were signed over).
 */
export function verifyFamilySignature(
  metadata: PassportMetadata,
  tokenId: string,
  rootKeys: readonly Uint8Array[],
  verifier: SignatureVerifier,
): boolean {
  const text = metadata.serviceprovider_signature;
  if (typeof text !== 'string') return false;
  const signature = decodeBase64Url(text);
  if (!signature || signature.length !== 64) return false;
  // Verifiers only read the message; the remembered digests are never handed out otherwise.
  return signedDigests(metadata, tokenId).some((digest) =>
    rootKeys.some((key) => verifier.verify(signature, digest, key) === true),
  );
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
