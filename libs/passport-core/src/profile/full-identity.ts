/**
 * @module profile/full-identity
 * The identity bodies that show a passport's whole metadata: the full identity of a peer
 * (`GET /api/identity/token/{tokenId}/full`, docs/protocol.md §4: `{tokenId, dn, face, contactUris,
 * metadata, disclaimer}`) and the caller's own identity (`GET /api/me/identity`: `{tokenId, dn, face,
 * notAfter, metadata}`). The HTTP layer adds `requestId`.
 */
import { parseDn, type ParsedDn } from '../dn/dn.parser.js';
import { passportNotAfterMs } from '../passport/passport-conditions.js';
import { type PassportMetadata, type PassportRecord } from '../passport/passport.types.js';
import { decodeFace, type Face } from '../token-id/face.decoder.js';
import { SELF_DECLARED_DISCLAIMER } from './disclaimer.js';

export interface FullIdentity {
  readonly tokenId: string;
  readonly dn: ParsedDn | null;
  readonly face: Face | null;
  readonly contactUris: string[];
  readonly metadata: Record<string, string>;
  readonly disclaimer: string;
}

export interface OwnIdentity {
  readonly tokenId: string;
  readonly dn: ParsedDn | null;
  readonly face: Face | null;
  /** ISO 8601, or null when the passport does not expire (or its `not_after` is unreadable). */
  readonly notAfter: string | null;
  readonly metadata: Record<string, string> | null;
}

export function buildFullIdentity(record: Pick<PassportRecord, 'tokenId' | 'metadata'>): FullIdentity {
  const dn = parseDn(record.metadata.userselected_dn);
  return {
    tokenId: record.tokenId,
    dn,
    face: decodeFace(record.tokenId),
    contactUris: dn ? [...dn.contactUris] : [],
    metadata: plainMetadata(record.metadata),
    disclaimer: SELF_DECLARED_DISCLAIMER,
  };
}

export function buildOwnIdentity(record: Pick<PassportRecord, 'tokenId' | 'metadata'>): OwnIdentity {
  const notAfterMs = passportNotAfterMs(record.metadata);
  return {
    tokenId: record.tokenId,
    dn: parseDn(record.metadata.userselected_dn),
    face: decodeFace(record.tokenId),
    notAfter: notAfterMs !== null && Number.isFinite(notAfterMs) ? new Date(notAfterMs).toISOString() : null,
    metadata: plainMetadata(record.metadata),
  };
}

/** The metadata's string values, keys sorted, as a plain object (no undefined values, no prototype tricks). */
function plainMetadata(metadata: PassportMetadata): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(metadata).sort()) {
    const value = metadata[key];
    if (typeof value === 'string') out[key] = value;
  }
  return out;
}
