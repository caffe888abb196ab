/**
 * Whether an authenticated caller holds the privilege of a route. All of these must hold:
 * - the route's exact path is a key of `entities.methods` in `permissioned_routes` in the claim (what the
 *   login saw) and
 * - on the passport as the chain holds it now (re-read by the JWT tier, ≤ 5 s old), so a privilege
 *   withdrawn on chain ends for open sessions as it does for new logins; an alias route is granted by its
 *   main route's key as well;
 * - the session is local, not federated: a passport the family issued for another API
 *   (`LOGIN_ACCEPT_FOREIGN`) was given its routes for that API, not for this one (else an admin of
 *   another API could revoke sessions here and sign a family-wide admin with signclient);
 * - the passport is vouched for by this server's own family (a root of its `serviceprovider_id` signed
 *   it): in the `p2p` and `promiscuous` login modes a passport of another family logs in, and its
 *   family root may write any `permissioned_routes` (a peer family could give itself every admin route
 *   here). The signature is checked against the passport as the chain holds it now, with the verdicts
 *   cached as long as the chain cache keeps the records (as login does).
 * One rule for the privileged tier (PrivilegedGuard) and for a route that grades its callers
 * (`/api/signclient` signs privileges only for a caller privileged for it, not for a privilege
 * withdrawn on chain and read from the claim alone).
 */
import { Inject, Injectable, Optional } from '@nestjs/common';
import { FamilyVerdictCache, PassportError, type ChainReader, type Clock } from '@passport/core';
import { checkFamilyMembership, parseServiceProviderId } from '@passport/core/family';
import { isRouteGranted } from '@passport/core/login';
import { ChainUnavailableError, type PassportRecord, type SignatureVerifier } from '@passport/core/ports';
import { type CachingChainReader } from '@passport/adapters/caching';
import {
  CHAIN_CACHE,
  CHAIN_READER,
  CLOCK,
  SERVER_IDENTITY,
  SIGNATURE_VERIFIER,
} from '../platform/infrastructure/di-tokens.js';
import { type ServerIdentity } from '../platform/infrastructure/server-identity.js';
import { type AuthContext } from './auth-context.js';

/** The claim and the passport as the chain holds it now both grant `path` (the core's rule; no family check). */
function routeGranted(auth: AuthContext, path: string): boolean {
  if (auth.passport === null) return false; // without the passport as the chain holds it now, nothing
  return isRouteGranted(
    {
      claimed: auth.claims.passport_permissionedroutes,
      onChain: auth.passport.metadata.permissioned_routes,
      // A federated session's token names this server in the federated claim (its iss is the home API).
      federated: auth.claims.passport_subjectuniqueidentifier_url != null,
    },
    path,
  );
}

@Injectable()
export class PrivilegeGrants {
  private readonly family: ReturnType<typeof parseServiceProviderId>;
  private readonly verifier: FamilyVerdictCache;

  constructor(
    @Inject(CHAIN_READER) private readonly chain: ChainReader,
    @Inject(SIGNATURE_VERIFIER) signatures: SignatureVerifier,
    @Inject(SERVER_IDENTITY) server: ServerIdentity,
    @Inject(CLOCK) clock: Clock,
    @Optional() @Inject(CHAIN_CACHE) chainCache?: Pick<CachingChainReader, 'ttlMs'>,
  ) {
    this.family = parseServiceProviderId(server.serviceProviderId);
    this.verifier = new FamilyVerdictCache(signatures, {
      ttlMs: chainCache?.ttlMs ?? 0,
      clock,
    });
  }

  /** Whether `auth` holds the privilege of `path` (see the module doc). */
  async granted(auth: AuthContext, path: string): Promise<boolean> {
    if (!routeGranted(auth, path) || auth.passport === null) return false;
    return this.vouched(auth.passport);
  }

  /**
   * Whether a root of this server's own family, as the chain holds it now, signed this passport record.
   * A chain that cannot be read is 503 `SERVICE_UNAVAILABLE` (`chain_unavailable`), as on the JWT tier,
   * never an unexpected error: the roots are read apart from the passport, so one can fail alone.
   */
  async vouched(passport: Pick<PassportRecord, 'tokenId' | 'metadata'>): Promise<boolean> {
    if (this.family === null) return false;
    try {
      const membership = await checkFamilyMembership({
        chain: this.chain,
        verifier: this.verifier,
        family: this.family,
        metadata: passport.metadata,
        tokenId: passport.tokenId,
      });
      return membership.member;
    } catch (error) {
      if (error instanceof ChainUnavailableError)
        throw new PassportError('SERVICE_UNAVAILABLE', { reason: 'chain_unavailable' }, undefined, {
          cause: error,
        });
      throw error;
    }
  }
}
