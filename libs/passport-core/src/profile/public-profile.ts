/**
 * @module profile/public-profile
 * The public passport profile (spec "Public passport profile"): returned by verify with
 * `includeProfile: true` and by `GET /api/identity/token/{tokenId}/public`. Everything but `tokenId`,
 * `did`, `ownerAccountId` and `face` comes from self-declared metadata (the DN and `webhook_url`),
 * sanitised: names without display controls, links only in forms a page may render (profile-links.ts).
 */
import { passportDid } from '../did/did-document.js';
import { parseDn } from '../dn/dn.parser.js';
import { type PassportRecord } from '../passport/passport.types.js';
import { decodeFace, type Face } from '../token-id/face.decoder.js';
import { isSafeContactUri, profileText, webhookUrlOrNull, webUrlOrNull } from './profile-links.js';

export interface PublicProfile {
  readonly tokenId: string;
  readonly did: string;
  readonly ownerAccountId: string | null;
  readonly displayName: string | null;
  readonly creature: string | null;
  readonly contactUris: string[];
  readonly avatarUrl: string | null;
  readonly emojiUrl: string | null;
  readonly webhookUrl: string | null;
  readonly face: Face | null;
  /** Present only when enrichment failed (`profile_unavailable`). */
  readonly error?: string;
}

export function buildPublicProfile(
  record: Pick<PassportRecord, 'tokenId' | 'ownerId' | 'metadata'>,
): PublicProfile {
  const dn = parseDn(record.metadata.userselected_dn);
  return {
    tokenId: record.tokenId,
    did: passportDid(record.tokenId),
    ownerAccountId: nonEmpty(record.ownerId),
    displayName: profileText(dn?.displayName),
    creature: profileText(dn?.creature),
    contactUris: dn ? dn.contactUris.filter(isSafeContactUri) : [],
    avatarUrl: webUrlOrNull(dn?.avatarUrl),
    emojiUrl: webUrlOrNull(dn?.emojiUrl),
    // A webhook_url without a scheme is an https base URL, as the webhook sender and the DID document read it.
    webhookUrl: webhookUrlOrNull(record.metadata.webhook_url),
    face: decodeFace(record.tokenId),
  };
}

/**
 * The profile when the passport could not be read (verify still answers; spec: `error` present only
 * when enrichment failed). Only what the token id alone tells is filled in.
 */
export function unavailableProfile(tokenId: string, error = 'profile_unavailable'): PublicProfile {
  return {
    tokenId,
    did: passportDid(tokenId),
    ownerAccountId: null,
    displayName: null,
    creature: null,
    contactUris: [],
    avatarUrl: null,
    emojiUrl: null,
    webhookUrl: null,
    face: decodeFace(tokenId),
    error,
  };
}

function nonEmpty(value: string | undefined): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}
