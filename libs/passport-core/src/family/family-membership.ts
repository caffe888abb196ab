/**
 * @module family/family-membership
 * Whether a passport belongs to a family (docs/protocol.md §3): its `serviceprovider_signature` verifies
 * with the owner key of one of the family's root passports. Each root `id` of the family names the
 * root passport `bc=<chain>;sc=<contract>;id=<root>` on the chain; its current owner's keys sign.
 * A revoked root vouches for nobody, and a root missing from the chain is skipped.
 */
import { type PassportMetadata } from '../passport/passport.types.js';
import { isPassportRevoked } from '../passport/passport-conditions.js';
import { resolveOwnerKeys } from '../passport/owner-keys.js';
import { type ChainReader } from '../ports/chain-reader.port.js';
import { type SignatureVerifier } from '../ports/signature-verifier.port.js';
import { verifyFamilySignature } from './family-signature.js';
import { familyRootTokenId, type ServiceProviderId } from './serviceprovider-id.js';

export type FamilyMembership =
  | { readonly member: true; /** The root whose key signed. */ readonly rootId: string }
  | { readonly member: false; readonly rootId: null };

export async function checkFamilyMembership(params: {
  readonly chain: ChainReader;
  readonly verifier: SignatureVerifier;
  /** The family to check against (for login: the server's own `serviceprovider_id`). */
  readonly family: ServiceProviderId;
  readonly metadata: PassportMetadata;
  /** The passport's own token id from its chain record (part of what the issuer signs). */
  readonly tokenId: string;
}): Promise<FamilyMembership> {
  const { chain, verifier, family, metadata, tokenId } = params;
  for (const rootId of family.rootIds) {
    const root = await chain.getPassport(familyRootTokenId(family, rootId));
    if (!root || isPassportRevoked(root)) continue;
    const keys = await resolveOwnerKeys(chain, root.ownerId);
    if (verifyFamilySignature(metadata, tokenId, keys, verifier)) return { member: true, rootId };
  }
  return { member: false, rootId: null };
}
