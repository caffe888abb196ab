/**
 * Mints a family member the issuer's way: the family root signs the record's metadata together with
 * the token id (the token id is not carried in the metadata). One implementation for the server
 * passport the development family creates on first start and for every passport `passport mint` adds,
 * so both produce records the verifier reads alike.
 */
import { signFamilyMetadata, type PassportMetadata } from '@passport/core';
import { createNodeSigner } from '@passport/core/node';
import { type LedgerPassportEntry } from './ledger-file.js';

/** Optional metadata fields of a minted passport (absent fields are left out of the record). */
export type FamilyMemberFields = Pick<
  PassportMetadata,
  | 'not_before'
  | 'not_after'
  | 'max_requests'
  | 'maxrq_window'
  | 'userselected_dn'
  | 'webhook_url'
  | 'permissioned_routes'
>;

export interface FamilyMintRequest {
  /** The family root's token id (`bc=…;sc=…;id=…`). */
  readonly rootTokenId: string;
  /** Secret seed of the family-root key (it signs the member's metadata). */
  readonly rootSecretSeed: Uint8Array;
  /** The new passport's 12-letter token id. */
  readonly tokenId: string;
  /** NEAR account that owns the new passport. */
  readonly ownerId: string;
  /** The family server's base URL (`subjectuniqueidentifier_url`). */
  readonly serverUrl: string;
  readonly fields?: FamilyMemberFields;
}

export interface MintedPassport {
  /** The signed metadata (with `serviceprovider_signature`). */
  readonly metadata: PassportMetadata;
  /** The ledger entry holding it (string-valued metadata only, as the ledger stores it). */
  readonly entry: LedgerPassportEntry;
}

export function mintFamilyPassport(request: FamilyMintRequest): MintedPassport {
  const metadata: PassportMetadata = {
    serviceprovider_id: request.rootTokenId,
    subjectuniqueidentifier_url: request.serverUrl,
  };
  for (const [key, value] of Object.entries(request.fields ?? {}) as [
    keyof FamilyMemberFields,
    string | undefined,
  ][])
    if (value !== undefined) metadata[key] = value;
  metadata.serviceprovider_signature = signFamilyMetadata(
    metadata,
    request.tokenId,
    createNodeSigner(request.rootSecretSeed),
  );
  return {
    metadata,
    entry: { token_id: request.tokenId, owner_id: request.ownerId, metadata: stringsOnly(metadata) },
  };
}

function stringsOnly(metadata: PassportMetadata): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata)) if (typeof value === 'string') out[key] = value;
  return out;
}
