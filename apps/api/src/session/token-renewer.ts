/**
 * Server-initiated renewal (JWT_RENEWAL=server): a request whose token is in the last 20 % of its
 * lifetime is answered with a fresh token in the `New-Token` response header; the core decides when
 * and builds the claims (`renewTokenClaims`). The decision is two integer comparisons; the signing
 * happens only for tokens at their renewal point.
 *
 * Concurrent requests carrying the same token at its renewal point share one renewal (keyed by the
 * old token's `jti`, remembered while that token lives, bounded), so a burst of requests signs once
 * and records one renewal. Every request succeeds with the token it sent: the replaced token stays
 * valid until its own `exp`.
 */
import { Inject, Injectable } from '@nestjs/common';
import { type FastifyReply } from 'fastify';
import { type Clock } from '@passport/core';
import { NEW_TOKEN_HEADER, isRenewalDue, renewTokenClaims } from '@passport/core/login';
import { passportNotAfterMs } from '@passport/core/passport';
import { type SessionStore } from '@passport/core/ports';
import { type AppConfig } from '../platform/config/app-config.js';
import { ServerPassportCheck } from '../platform/chain/server-passport.check.js';
import { APP_CONFIG, CLOCK, SERVER_IDENTITY, SESSION_STORE } from '../platform/infrastructure/di-tokens.js';
import { type ServerIdentity } from '../platform/infrastructure/server-identity.js';
import { type AuthContext } from './auth-context.js';
import { EddsaJwtCodec } from './eddsa-jwt.codec.js';

/** The response header carrying a renewed (or, on logout, the termination) token. */
export { NEW_TOKEN_HEADER };
/** Renewals remembered per replaced token (oldest dropped first). */
const SHARED_RENEWALS = 10_000;

interface SharedRenewal {
  readonly token: Promise<string | null>;
  /** The replaced token's exp (ms): the entry is useless after it. */
  readonly untilMs: number;
}

/** A renewal refused for a while (the server passport unusable), to be tried again by a later request. */
const RETRY_LATER = Symbol('retry later');

@Injectable()
export class TokenRenewer {
  private readonly enabled: boolean;
  private readonly shared = new Map<string, SharedRenewal>();

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(SERVER_IDENTITY) private readonly server: ServerIdentity,
    @Inject(SESSION_STORE) private readonly sessions: SessionStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly codec: EddsaJwtCodec,
    private readonly serverPassport: ServerPassportCheck,
  ) {
    this.enabled = config.sessions.renewal === 'server';
  }

  /**
   * Sets the renewed token on `reply` (`New-Token`, and `Cache-Control: no-store`: a response carrying a
   * token is never stored by a cache) when one is due; null when none is (the normal case), so the caller
   * has no promise to wait for. Every route that authenticates a bearer token calls it, the optional
   * bearer of verify and signclient too: their OpenAPI answers declare `New-Token` (a probe found none).
   */
  renewOnto(auth: AuthContext, reply: FastifyReply): Promise<void> | null {
    const renewal = this.renewIfDue(auth);
    if (renewal === null) return null;
    return renewal.then((token) => {
      if (token !== null) void reply.header(NEW_TOKEN_HEADER, token).header('Cache-Control', 'no-store');
    });
  }

  /** The renewed token for this caller, or null when none is due (the normal case) or possible. */
  renewIfDue(auth: AuthContext): Promise<string | null> | null {
    if (!this.enabled || auth.passport === null) return null;
    const nowMs = this.clock.nowMs();
    if (!isRenewalDue(auth.claims, nowMs)) return null;
    const key = String(auth.claims.jti);
    const existing = this.shared.get(key);
    if (existing && existing.untilMs > nowMs) return existing.token;
    const token: Promise<string | null> = this.renew(auth, nowMs).then(
      (renewed) => {
        // Not now, but maybe on a later request: not shared for the token's whole life.
        if (renewed === RETRY_LATER) {
          if (this.shared.get(key)?.token === token) this.shared.delete(key);
          return null;
        }
        return renewed;
      },
      () => null,
    );
    if (this.shared.size >= SHARED_RENEWALS) this.shared.delete(this.shared.keys().next().value as string);
    this.shared.set(key, { token, untilMs: Number(auth.claims.exp) * 1000 });
    return token;
  }

  private async renew(auth: AuthContext, nowMs: number): Promise<string | null | typeof RETRY_LATER> {
    const renewed = renewTokenClaims({
      claims: auth.claims,
      nowMs,
      passportNotAfterMs: auth.passport ? passportNotAfterMs(auth.passport.metadata) : null,
      signer: this.server.signer,
    });
    if (!renewed) return null;
    // No new token naming a server passport that is revoked, transferred, gone or not live on chain (a
    // review: login refused, renewal still issued). The token sent stays valid until its own exp.
    if ((await this.serverPassport.problem()) !== undefined) return RETRY_LATER;
    // Recorded first: a session closed meanwhile gets no new token.
    if (!(await this.sessions.recordRenewal(auth.sessionId, nowMs))) return null;
    return this.codec.sign(renewed.claims);
  }
}
