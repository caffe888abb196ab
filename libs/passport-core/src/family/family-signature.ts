/**
 * @module family/family-signature
 * The family signature (`metadata.serviceprovider_signature`, resolutions §3): the family root key's
 * Ed25519 signature, base64url, over the SHA-512 digest of the canonical JSON of exactly the fields
 * below (fields the metadata lacks are dropped). Other metadata — `webhook_url`, the DN, `revoked` —
 * is deliberately outside the signature, as in production, so that clients keep verifying.
 */
import { sha512 } from '@noble/hashes/sha2.js';
import { decodeBase64Url, encodeBase64Url } from '../codecs/base64url.codec.js';
import { utf8 } from '../codecs/utf8.codec.js';
import { type PassportMetadata } from '../passport/passport.types.js';
import { type SignatureVerifier, type Signer } from '../ports/signature-verifier.port.js';
import { canonicalJson } from './canonical-json.js';

export const FAMILY_SIGNED_FIELDS = [
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
] as const;

export type FamilySignedField = (typeof FAMILY_SIGNED_FIELDS)[number];

/** The signed subset of the metadata, undefined fields dropped. */
export function familySignedPayload(metadata: Readonly<Partial<Record<string, unknown>>>): Partial<Record<FamilySignedField, unknown>> {
  const payload: Partial<Record<FamilySignedField, unknown>> = {};
  for (const field of FAMILY_SIGNED_FIELDS) {
    if (Object.prototype.hasOwnProperty.call(metadata, field) && metadata[field] !== undefined) payload[field] = metadata[field];
  }
  return payload;
}

/** SHA-512 (64 bytes) of the canonical JSON of the signed fields: the message the root key signs. */
export function familyMetadataDigest(metadata: Readonly<Partial<Record<string, unknown>>>): Uint8Array {
  return sha512(utf8(canonicalJson(familySignedPayload(metadata))));
}

/** `serviceprovider_signature` for this metadata, signed by the family root. */
export function signFamilyMetadata(metadata: Readonly<Partial<Record<string, unknown>>>, signer: Signer): string {
  return encodeBase64Url(signer.sign(familyMetadataDigest(metadata)));
}

/**
 * True when `metadata.serviceprovider_signature` is a strict base64url 64-byte signature of the
 * digest by one of `rootKeys`.
 */
export function verifyFamilySignature(
  metadata: PassportMetadata,
  rootKeys: readonly Uint8Array[],
  verifier: SignatureVerifier,
): boolean {
  const text = metadata.serviceprovider_signature;
  if (typeof text !== 'string') return false;
  const signature = decodeBase64Url(text);
  if (!signature || signature.length !== 64) return false;
  const digest = familyMetadataDigest(metadata);
  return rootKeys.some((key) => verifier.verify(signature, digest, key));
}
