/**
 * The bearer tier (spec: Bearer validation failures; resolutions §3): only the Authorization header
 * counts; the JWT must verify (EdDSA, our aud/iss, unexpired) and its session must be open, unexpired
 * and the one the token was issued with. The session lookup happens on every request so that logout
 * and revocation take effect at once wherever the store is shared.
 */
import { Inject, Injectable } from '@nestjs/common';
import { PassportError, type Clock } from '@passport/core';
import { tokenIdFromSubject } from '@passport/core/login';
import { type SessionStore } from '@passport/core/ports';
import { CLOCK, SESSION_STORE } from '../../infrastructure/di-tokens.js';
import { EddsaJwtCodec } from '../jwt/eddsa-jwt.codec.js';
import { type AuthContext } from './auth-context.js';

const BEARER = /^Bearer +(\S+)\s*$/i;
const FEDERATED_CLAIM = 'passport_subjectuniqueidentifier_url';

const invalidated = (reason: 'invalid_jwt_format' | 'error_checking_session', cause: string): PassportError =>
  new PassportError('INVALIDATED_TOKEN', { reason, cause });

@Injectable()
export class BearerAuthenticator {
  constructor(
    private readonly codec: EddsaJwtCodec,
    @Inject(SESSION_STORE) private readonly sessions: SessionStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The caller, or null when no Authorization header was sent (optional-JWT routes). */
  async authenticateOptional(header: string | string[] | undefined): Promise<AuthContext | null> {
    if (header === undefined || header === '') return null;
    return this.authenticate(header);
  }

  async authenticate(header: string | string[] | undefined): Promise<AuthContext> {
    if (header === undefined || header === '') throw new PassportError('MISSING_TOKEN');
    const match = typeof header === 'string' ? BEARER.exec(header) : null;
    if (!match) throw invalidated('invalid_jwt_format', 'not_bearer_scheme');

    const verified = await this.codec.verify(match[1]);
    if (!verified.ok) throw invalidated(verified.reason, verified.cause);
    const { claims } = verified;

    const sessionId = claims.session_id;
    if (typeof sessionId !== 'string') throw invalidated('error_checking_session', 'session_unknown');
    let session;
    try {
      session = await this.sessions.get(sessionId);
    } catch {
      throw invalidated('error_checking_session', 'session_store_unavailable');
    }
    if (!session) throw invalidated('error_checking_session', 'session_unknown');
    if (session.closedAtMs !== null) throw invalidated('error_checking_session', 'session_closed');
    if (session.expiresAtMs <= this.clock.nowMs()) throw invalidated('error_checking_session', 'session_expired');
    if (session.jti !== claims.jti) throw invalidated('error_checking_session', 'session_mismatch');
    const subjectTokenId = tokenIdFromSubject(claims.sub);
    if (subjectTokenId !== null && subjectTokenId !== session.tokenId) {
      throw invalidated('error_checking_session', 'session_mismatch');
    }
    const federatedFrom = claims[FEDERATED_CLAIM] == null ? null : claims.iss;
    if ((session.federatedFrom ?? null) !== (federatedFrom ?? null)) {
      throw invalidated('error_checking_session', 'session_mismatch');
    }
    return { claims, sessionId, tokenId: session.tokenId };
  }
}
