/**
 * The bearer tier (spec: Bearer validation failures; docs/protocol.md §3): only the Authorization header
 * counts; the JWT must verify (EdDSA, our aud/iss, unexpired) and its session must be open, unexpired
 * and the one the token was issued with (its `session_exp` is the session's: every token of a session,
 * renewed or not, carries it). The session lookup happens on every request so that logout and
 * revocation take effect at once wherever the store is shared.
 *
 * The holder's passport is re-read through the cached chain reader (≤ 5 s old): a revoked or no longer
 * live passport is refused (`passport_revoked`, `passport_not_live`, `passport_not_found`) and its
 * session closed, so a revocation ends the session within seconds rather than at the token's `exp`.
 */
import { Inject, Injectable } from '@nestjs/common';
import {
  ChainUnavailableError,
  PassportError,
  type ChainReader,
  type Clock,
  type PassportRecord,
} from '@passport/core';
import { isPassportLive, isPassportRevoked, parsePassportTimeBound } from '@passport/core/passport';
import { tokenIdFromSubject } from '@passport/core/login';
import { type SessionRecord, type SessionStore } from '@passport/core/ports';
import { CHAIN_READER, CLOCK, SESSION_STORE } from '../platform/infrastructure/di-tokens.js';
import { EddsaJwtCodec } from './eddsa-jwt.codec.js';
import { type AuthContext } from './auth-context.js';

const BEARER = /^Bearer +(\S+)\s*$/i;
const FEDERATED_CLAIM = 'passport_subjectuniqueidentifier_url';

const invalidated = (reason: 'invalid_jwt_format' | 'error_checking_session', cause: string): PassportError =>
  new PassportError('INVALIDATED_TOKEN', { reason, cause });

@Injectable()
export class BearerAuthenticator {
  private readonly timeBounded = new WeakMap<PassportRecord, boolean>();

  constructor(
    private readonly codec: EddsaJwtCodec,
    @Inject(SESSION_STORE) private readonly sessions: SessionStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CHAIN_READER) private readonly chain: ChainReader,
  ) {}

  /** The caller, or null when no Authorization header was sent (optional-JWT routes). */
  async authenticateOptional(header: string | string[] | undefined): Promise<AuthContext | null> {
    if (header === undefined || header === '') return null;
    return this.authenticate(header);
  }

  /**
   * @param options.forLogout the logout form: a validly signed token past its `exp` is accepted while
   *   its session is open, and the passport is not re-read (closing a session is always allowed).
   */
  async authenticate(
    header: string | string[] | undefined,
    options: { readonly forLogout?: boolean } = {},
  ): Promise<AuthContext> {
    if (header === undefined || header === '') throw new PassportError('MISSING_TOKEN');
    const match = typeof header === 'string' ? BEARER.exec(header) : null;
    if (!match) throw invalidated('invalid_jwt_format', 'not_bearer_scheme');
    const forLogout = options.forLogout === true;

    const token = match[1];
    // A token seen before is answered from the codec's cache without a promise.
    const verified =
      this.codec.verifyCached(token, { allowExpired: forLogout }) ??
      (await this.codec.verify(token, { allowExpired: forLogout }));
    if (!verified.ok) throw invalidated(verified.reason, verified.cause);
    const { claims } = verified;

    const sessionId = claims.session_id;
    if (typeof sessionId !== 'string') throw invalidated('error_checking_session', 'session_unknown');
    let session;
    try {
      session = await this.sessions.get(sessionId);
    } catch {
      // A store outage is not a logout: the client retries later with the same token.
      throw new PassportError('SERVICE_UNAVAILABLE', { reason: 'session_store_unavailable' });
    }
    if (!session) throw invalidated('error_checking_session', 'session_unknown');
    if (session.closedAtMs !== null) throw invalidated('error_checking_session', 'session_closed');
    if (session.expiresAtMs <= this.clock.nowMs()) throw invalidated('error_checking_session', 'session_expired');
    if (typeof claims.session_exp !== 'number' || claims.session_exp * 1000 !== session.expiresAtMs) {
      throw invalidated('error_checking_session', 'session_mismatch');
    }
    const subjectTokenId = tokenIdFromSubject(claims.sub);
    if (subjectTokenId !== null && subjectTokenId !== session.tokenId) {
      throw invalidated('error_checking_session', 'session_mismatch');
    }
    const federatedFrom = claims[FEDERATED_CLAIM] == null ? null : claims.iss;
    if ((session.federatedFrom ?? null) !== (federatedFrom ?? null)) {
      throw invalidated('error_checking_session', 'session_mismatch');
    }
    const passport = forLogout ? null : await this.livePassport(session);
    return { claims, sessionId, tokenId: session.tokenId, passport };
  }

  /** Whether `not_before` or `not_after` bounds the passport; remembered per record (the chain cache hands out the same one for ≤ 5 s). */
  private hasTimeBounds(passport: PassportRecord): boolean {
    let bounded = this.timeBounded.get(passport);
    if (bounded === undefined) {
      const { not_before: start, not_after: end } = passport.metadata;
      bounded =
        parsePassportTimeBound(start, 'start').kind !== 'unbounded' || parsePassportTimeBound(end, 'end').kind !== 'unbounded';
      this.timeBounded.set(passport, bounded);
    }
    return bounded;
  }

  /** The holder's passport when it is still live and unrevoked; otherwise its session is closed and the token refused. */
  private async livePassport(session: SessionRecord): Promise<PassportRecord> {
    let passport: PassportRecord | null;
    let chainTimeMs = 0;
    try {
      passport = await this.chain.getPassport(session.tokenId);
      // Most passports have no time bounds: then the chain time is not needed (one read fewer per request).
      if (passport && this.hasTimeBounds(passport)) chainTimeMs = await this.chain.chainTimeMs();
    } catch (error) {
      // A chain outage is not a bad token: the client retries with the same one.
      if (error instanceof ChainUnavailableError) throw new PassportError('SERVICE_UNAVAILABLE', { reason: 'chain_unavailable' });
      throw error;
    }
    const cause = !passport
      ? 'passport_not_found'
      : isPassportRevoked(passport)
        ? 'passport_revoked'
        : this.hasTimeBounds(passport) && !isPassportLive(passport.metadata, chainTimeMs)
          ? 'passport_not_live'
          : null;
    if (cause === null) return passport!;
    await this.sessions.close(session.sessionId, cause, this.clock.nowMs()).catch(() => false);
    throw invalidated('error_checking_session', cause);
  }
}
