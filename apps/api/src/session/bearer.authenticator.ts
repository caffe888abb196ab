/**
 * The bearer tier (spec: Bearer validation failures; docs/protocol.md §3): only the Authorization header
 * counts; the JWT must verify (EdDSA, our aud/iss, unexpired) and its session must be open, unexpired
 * and the one the token was issued with (its `session_exp` is the session's: every token of a session,
 * renewed or not, carries it). The session lookup happens on every request so that logout and
 * revocation take effect at once wherever the store is shared.
 *
 * The holder's passport is re-read through the cached chain reader (≤ 5 s old): a revoked, transferred
 * (owned by another account than at login) or no longer live passport is refused (`passport_revoked`,
 * `passport_transferred`, `passport_not_live`, `passport_not_found`) and its session closed, so a
 * revocation or a transfer ends the session within seconds rather than at the token's `exp`. Before a
 * session is closed for any reason but a revocation, the passport is read once more past the cache, and
 * the session is closed only if that answer refuses it too: one answer of a lagging RPC node (an older
 * block, where the passport did not exist yet or had its former owner) must not end a session the chain
 * still backs. A revocation is closed at once: it is never undone, so an answer saying so is true.
 *
 * Tokens are signed with the server passport's key: while that passport is revoked, transferred, gone
 * or not live (its key may have leaked), no token is honoured: 503 `SERVICE_UNAVAILABLE` with the reason
 * login gives (`server_passport_revoked`, …); sessions stay open and work again once the passport does.
 */
import { Inject, Injectable } from '@nestjs/common';
import {
  ChainUnavailableError,
  PassportError,
  type ChainReader,
  type Clock,
  type PassportRecord,
} from '@passport/core';
import { isPassportLive, isPassportRevoked } from '@passport/core/passport';
import { tokenIdFromSubject } from '@passport/core/login';
import { withReservedChainReads } from '@passport/adapters/caching';
import {
  canPeekPassport,
  canRereadPassport,
  hasSyncSessionGet,
  type SessionRecord,
  type SessionStore,
} from '@passport/core/ports';
import { hasTimeBounds } from '../platform/chain/passport-time-bounds.js';
import { ServerPassportCheck } from '../platform/chain/server-passport.check.js';
import { CHAIN_READER, CLOCK, SESSION_STORE } from '../platform/infrastructure/di-tokens.js';
import { EddsaJwtCodec, type JwtClaims, type JwtVerifyResult } from './eddsa-jwt.codec.js';
import { type AuthContext } from './auth-context.js';

const BEARER = /^Bearer +(\S+)\s*$/i;
const BEARER_PREFIX = 'Bearer ';
const FEDERATED_CLAIM = 'passport_subjectuniqueidentifier_url';

const invalidated = (reason: 'invalid_jwt_format' | 'error_checking_session', cause: string): PassportError =>
  new PassportError('INVALIDATED_TOKEN', { reason, cause });

@Injectable()
export class BearerAuthenticator {
  constructor(
    private readonly codec: EddsaJwtCodec,
    @Inject(SESSION_STORE) private readonly sessions: SessionStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CHAIN_READER) private readonly chain: ChainReader,
    private readonly serverPassport: ServerPassportCheck,
  ) {}

  /** The caller, or null when no Authorization header was sent (optional-JWT routes). */
  async authenticateOptional(header: string | string[] | undefined): Promise<AuthContext | null> {
    if (header === undefined || header === '') return null;
    return this.authenticate(header);
  }

  /**
   * @param options.forLogout the logout form: a validly signed token past its `exp`, or not valid yet by
   *   a clock set back since it was issued, is accepted while its session is open, and the passport is
   *   not re-read (closing a session is always allowed).
   */
  async authenticate(
    header: string | string[] | undefined,
    options: { readonly forLogout?: boolean } = {},
  ): Promise<AuthContext> {
    return this.authenticateNow(header, options.forLogout === true);
  }

  /**
   * `authenticate` (not the logout form), answered on the calling stack when everything it reads is at
   * hand: a token verified before, a store with a synchronous session read (memory, SQLite) and the
   * passport in the chain cache. That is the bearer tier's usual request, which then waits for no
   * promise; otherwise (and for every refusal that closes the session) the promise of the same answer.
   * Throws or rejects with the same errors as `authenticate`; the session is read on every call.
   */
  authenticateSync(header: string | string[] | undefined): AuthContext | Promise<AuthContext> {
    return this.authenticateNow(header, false);
  }

  private authenticateNow(
    header: string | string[] | undefined,
    forLogout: boolean,
  ): AuthContext | Promise<AuthContext> {
    if (header === undefined || header === '') throw new PassportError('MISSING_TOKEN');
    // The usual header, `Bearer ` and a token verified before, answered without the RegExp's scan of
    // the ~500 characters: the codec only remembers tokens of three base64url segments (no
    // whitespace, never empty), so such a header is one the RegExp matches with that very token.
    if (typeof header === 'string' && header.startsWith(BEARER_PREFIX)) {
      const known = this.codec.verifyCached(header.slice(BEARER_PREFIX.length), {
        ignoreTimeWindow: forLogout,
      });
      if (known !== undefined) return this.withVerdict(known, forLogout);
    }
    const match = typeof header === 'string' ? BEARER.exec(header) : null;
    if (!match) throw invalidated('invalid_jwt_format', 'not_bearer_scheme');

    const token = match[1];
    // A token seen before is answered from the codec's cache without a promise.
    const known = this.codec.verifyCached(token, { ignoreTimeWindow: forLogout });
    if (known !== undefined) return this.withVerdict(known, forLogout);
    return this.codec
      .verify(token, { ignoreTimeWindow: forLogout })
      .then((verified) => this.withVerdict(verified, forLogout));
  }

  private withVerdict(verified: JwtVerifyResult, forLogout: boolean): AuthContext | Promise<AuthContext> {
    if (!verified.ok) throw invalidated(verified.reason, verified.cause);
    const { claims } = verified;
    const sessionId = claims.session_id;
    if (typeof sessionId !== 'string') throw invalidated('error_checking_session', 'session_unknown');
    const session = this.readSession(sessionId);
    if (session instanceof Promise)
      return session.then((read) => this.withSession(claims, sessionId, read, forLogout));
    return this.withSession(claims, sessionId, session, forLogout);
  }

  /** The session, read on every request (logout and revocation take effect at once): synchronously where the store can. */
  private readSession(sessionId: string): SessionRecord | null | Promise<SessionRecord | null> {
    // A store outage is not a logout: the client retries later with the same token.
    const unavailable = (): never => {
      throw new PassportError('SERVICE_UNAVAILABLE', { reason: 'session_store_unavailable' });
    };
    try {
      if (hasSyncSessionGet(this.sessions)) return this.sessions.getSync(sessionId);
      return this.sessions.get(sessionId).catch(unavailable);
    } catch {
      return unavailable();
    }
  }

  private withSession(
    claims: JwtClaims,
    sessionId: string,
    session: SessionRecord | null,
    forLogout: boolean,
  ): AuthContext | Promise<AuthContext> {
    if (!session) throw invalidated('error_checking_session', 'session_unknown');
    if (session.closedAtMs !== null) throw invalidated('error_checking_session', 'session_closed');
    if (session.expiresAtMs <= this.clock.nowMs())
      throw invalidated('error_checking_session', 'session_expired');
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
    if (forLogout) return { claims, sessionId, tokenId: session.tokenId, passport: null };
    // A revoked server passport stops logins and renewals, and must stop every token signed before it
    // too. Judged on the calling stack when the passport is in the chain cache.
    const serverUsable = this.serverPassport.usable({ reserved: true });
    if (serverUsable instanceof Promise)
      return serverUsable.then(() => this.withHolder(claims, sessionId, session));
    return this.withHolder(claims, sessionId, session);
  }

  private withHolder(
    claims: JwtClaims,
    sessionId: string,
    session: SessionRecord,
  ): AuthContext | Promise<AuthContext> {
    const passport = this.livePassport(session);
    if (passport instanceof Promise)
      return passport.then((live) => ({ claims, sessionId, tokenId: session.tokenId, passport: live }));
    return { claims, sessionId, tokenId: session.tokenId, passport };
  }

  /**
   * The holder's passport when it is still live and unrevoked; otherwise its session is closed and the
   * token refused. A fresh answer in the chain cache is judged on the calling stack.
   */
  private livePassport(session: SessionRecord): PassportRecord | Promise<PassportRecord> {
    const cached = canPeekPassport(this.chain) ? this.chain.peekPassport(session.tokenId) : undefined;
    if (cached !== undefined) return this.judgePassport(session, cached);
    return this.readChain(() => this.chain.getPassport(session.tokenId)).then((read) =>
      this.judgePassport(session, read),
    );
  }

  private judgePassport(
    session: SessionRecord,
    passport: PassportRecord | null,
    reread = false,
  ): PassportRecord | Promise<PassportRecord> {
    // Most passports have no time bounds: then the chain time is not needed (one read fewer per request).
    if (passport && hasTimeBounds(passport)) {
      return this.readChain(() => this.chain.chainTimeMs()).then((chainTimeMs) =>
        this.verdict(session, passport, chainTimeMs, reread),
      );
    }
    return this.verdict(session, passport, 0, reread);
  }

  private verdict(
    session: SessionRecord,
    passport: PassportRecord | null,
    chainTimeMs: number,
    reread: boolean,
  ): PassportRecord | Promise<PassportRecord> {
    const cause = !passport
      ? 'passport_not_found'
      : isPassportRevoked(passport)
        ? 'passport_revoked'
        : // The service follows current on-chain ownership: a passport moved to another account is no
          // longer the holder's (else the old owner's token works until session_exp after a transfer,
          // while its logins and lines are already refused).
          passport.ownerId !== session.ownerId
          ? 'passport_transferred'
          : hasTimeBounds(passport) && !isPassportLive(passport.metadata, chainTimeMs)
            ? 'passport_not_live'
            : null;
    if (cause === null) return passport!;
    // Confirmed by a second answer before the session is closed for good (a chain it cannot read then is
    // a 503, and the session stays open). Not a revocation: it is never undone on chain, so no node,
    // however far behind, reports a revoked passport that is not; and a lagging node answering the
    // re-read would otherwise let a revoked holder through for as long as it lags.
    if (!reread && cause !== 'passport_revoked' && canRereadPassport(this.chain)) {
      const chain = this.chain;
      return this.readChain(() => chain.rereadPassport(session.tokenId)).then((again) =>
        this.judgePassport(session, again, true),
      );
    }
    return this.sessions
      .close(session.sessionId, cause, this.clock.nowMs())
      .catch(() => false)
      .then(() => {
        throw invalidated('error_checking_session', cause);
      });
  }

  private readChain<T>(read: () => Promise<T>): Promise<T> {
    // A holder's re-check may use the chain reads anonymous lookups cannot take (else random-id
    // lookups hold every slot while the node is slow, and logged-in holders get 503).
    return withReservedChainReads(read).catch((error: unknown) => {
      // A chain outage is not a bad token: the client retries with the same one.
      if (error instanceof ChainUnavailableError)
        throw new PassportError('SERVICE_UNAVAILABLE', { reason: 'chain_unavailable' }, undefined, {
          cause: error,
        });
      throw error;
    });
  }
}
