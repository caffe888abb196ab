/**
 * `POST /api/login` (public) and logout (JWT), the latter at `POST /api/logout` and, as the production
 * clients call it, `POST /api/sessions/logout`: one operation. Logout accepts a validly signed token
 * past its `exp` while its session is open, is never refused by the passport's quota, and answers
 * `New-Token` with a short-lived termination token (`session_status: "closed"`).
 */
import { Body, Controller, Header, HttpCode, Inject, Post, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type FastifyReply } from 'fastify';
import { PassportError, type Clock } from '@passport/core';
import { terminationTokenClaims } from '@passport/core/login';
import { type SessionStore } from '@passport/core/ports';
import { RequestId } from '../platform/http/request-id.decorator.js';
import { CLOCK, SERVER_IDENTITY, SESSION_STORE } from '../platform/infrastructure/di-tokens.js';
import { type ServerIdentity } from '../platform/infrastructure/server-identity.js';
import { ApiErrors } from '../platform/openapi/api-errors.decorator.js';
import { Caller, type AuthContext } from '../session/auth-context.js';
import { LogoutAuthGuard } from '../session/logout-auth.guard.js';
import { EddsaJwtCodec } from '../session/eddsa-jwt.codec.js';
import { NEW_TOKEN_HEADER } from '../session/token-renewer.js';
import {
  loginRequestComponent,
  loginResponseComponent,
  logoutRequestComponent,
  logoutResponseComponent,
  type LoginResponse,
  type LogoutResponse,
} from './login.schema.js';
import { LoginService } from './login.service.js';
import { refuseLogoutOfAnother } from './logout-body.js';

/** A client's logout reason, kept with the session when it is short printable text. */
const LOGOUT_REASON = /^[\x20-\x7e]{1,100}$/;

export const BEARER_ERRORS = [
  'MISSING_TOKEN',
  'INVALIDATED_TOKEN',
  'RATE_LIMIT_EXCEEDED',
  'SERVICE_UNAVAILABLE',
] as const;

@ApiTags('login')
@Controller('api')
export class LoginController {
  constructor(
    private readonly logins: LoginService,
    @Inject(SESSION_STORE) private readonly sessions: SessionStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SERVER_IDENTITY) private readonly server: ServerIdentity,
    private readonly codec: EddsaJwtCodec,
  ) {}

  @Post('login')
  // A response carrying a token is never stored by a cache (RFC 6749 §5.1 asks the same of token responses).
  @Header('Cache-Control', 'no-store')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Log in with an Ed25519 signature over identifier + timestamp_iso; returns an EdDSA JWT',
    description: 'Fetch GET /api/login/timestamp first; use the pair once. The JWT lasts 3600 s at most.',
  })
  @ApiBody({ schema: loginRequestComponent })
  @ApiOkResponse({ schema: loginResponseComponent })
  @ApiErrors(
    'LOGIN_PAYLOAD_DEPRECATED',
    'LOGIN_IDENTIFIER_AMBIGUOUS',
    'MISSING_LOGIN_IDENTIFIER',
    'LOGIN_TIMESTAMP_AMBIGUOUS',
    'INVALID_LOGIN_TIMESTAMP',
    'MISSING_BASE64URL_SIGNATURE',
    'LOGIN_CHALLENGE_TIMESTAMP_INVALID',
    'PASSPORT_NOT_FOUND',
    'PASSPORT_MISSING_METADATA',
    'SERVER_PASSPORT_LOGIN_REFUSED',
    'LOGIN_BASE64URL_SIGNATURE_INVALID',
    'SERVER_CONFIG_INCOMPLETE',
    'PASSPORT_FAMILY_MISMATCH',
    'LOGIN_MODE_POLICY_REJECTED_*',
    'PASSPORT_NOT_LIVE',
    'PASSPORT_METADATA_TOO_LARGE',
    'PASSPORT_REVOKED',
    'SMART_CONTRACT_NOT_TRUSTED',
    'LOGIN_ERROR',
    'AUTH_SERVICE_UNAVAILABLE',
    'SERVICE_UNAVAILABLE',
    'SESSION_CAPACITY_REACHED',
    'REPLAY_STORE_FULL',
    'REPLAY_STORE_UNAVAILABLE',
  )
  async login(@Body() body: unknown, @RequestId() requestId: string): Promise<LoginResponse> {
    const outcome = await this.logins.login(body);
    return { jwt_token: outcome.jwtToken, requestId, passportid: outcome.tokenId };
  }

  @Post(['logout', 'sessions/logout'])
  @Header('Cache-Control', 'no-store')
  @HttpCode(200)
  @UseGuards(LogoutAuthGuard)
  @ApiBearerAuth()
  @ApiOperation({
    summary: "Close the caller's session; its tokens are refused from then on, on every instance",
    description:
      'Also at POST /api/sessions/logout (the same operation). Accepts a validly signed token past its exp while its ' +
      'session is open; never refused by the passport quota. The New-Token response header carries a 60 s termination ' +
      'token with session_status "closed". A body naming another session or passport (sessionId, session_id, tokenId, …) ' +
      'is refused 400 VALIDATION_FAILED and closes nothing: another session is closed with POST /api/sessions/revoke.',
  })
  @ApiBody({ schema: logoutRequestComponent, required: false })
  @ApiOkResponse({ schema: logoutResponseComponent })
  @ApiErrors(
    'MISSING_TOKEN',
    'INVALIDATED_TOKEN',
    'VALIDATION_FAILED',
    'SESSION_TERMINATION_FAILED',
    'SERVICE_UNAVAILABLE',
  )
  async logout(
    @Caller() caller: AuthContext,
    @Body() body: unknown,
    @RequestId() requestId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<LogoutResponse> {
    refuseLogoutOfAnother(body, caller);
    const nowMs = this.clock.nowMs();
    const given = (body as { reason?: unknown } | null | undefined)?.reason;
    const reason = typeof given === 'string' && LOGOUT_REASON.test(given) ? `logout: ${given}` : 'logout';
    let closed: boolean;
    try {
      closed = await this.sessions.close(caller.sessionId, reason, nowMs);
    } catch (error) {
      throw new PassportError('SESSION_TERMINATION_FAILED', null, undefined, { cause: error });
    }
    const termination = terminationTokenClaims({ claims: caller.claims, nowMs, signer: this.server.signer });
    void reply.header(NEW_TOKEN_HEADER, await this.codec.sign(termination));
    return {
      message: closed ? 'Session closed.' : 'Session was already closed.',
      sessionClosed: closed,
      sessionId: caller.sessionId,
      requestId,
    };
  }
}
