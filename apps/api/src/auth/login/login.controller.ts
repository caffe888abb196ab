/** `POST /api/login` (public) and `POST /api/logout` (JWT). */
import { Body, Controller, HttpCode, Inject, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PassportError, type Clock } from '@passport/core';
import { type SessionStore } from '@passport/core/ports';
import { RequestId } from '../../http/request-id.decorator.js';
import { CLOCK, SESSION_STORE } from '../../infrastructure/di-tokens.js';
import { ApiErrors } from '../../openapi/api-errors.decorator.js';
import { Caller, type AuthContext } from '../bearer/auth-context.js';
import { BearerAuthGuard } from '../bearer/bearer-auth.guard.js';
import { LoginRequestDto, LoginResponseDto, LogoutResponseDto } from './login.dto.js';
import { LoginService } from './login.service.js';

export const BEARER_ERRORS = ['MISSING_TOKEN', 'INVALIDATED_TOKEN', 'RATE_LIMIT_EXCEEDED'] as const;

@ApiTags('login')
@Controller('api')
export class LoginController {
  constructor(
    private readonly logins: LoginService,
    @Inject(SESSION_STORE) private readonly sessions: SessionStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Post('login')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Log in with an Ed25519 signature over identifier + timestamp_iso; returns an EdDSA JWT',
    description: 'Fetch GET /api/login/timestamp first; use the pair once. The JWT lasts 3600 s at most.',
  })
  @ApiBody({ type: LoginRequestDto })
  @ApiOkResponse({ type: LoginResponseDto })
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
    'LOGIN_BASE64URL_SIGNATURE_INVALID',
    'SERVER_CONFIG_INCOMPLETE',
    'PASSPORT_FAMILY_MISMATCH',
    'LOGIN_MODE_POLICY_REJECTED_*',
    'PASSPORT_NOT_LIVE',
    'PASSPORT_REVOKED',
    'SMART_CONTRACT_NOT_TRUSTED',
    'LOGIN_ERROR',
    'SERVICE_UNAVAILABLE',
  )
  async login(@Body() body: unknown, @RequestId() requestId: string): Promise<LoginResponseDto> {
    const outcome = await this.logins.login(body);
    return { jwt_token: outcome.jwtToken, requestId, passportid: outcome.tokenId };
  }

  @Post('logout')
  @HttpCode(200)
  @UseGuards(BearerAuthGuard)
  @ApiBearerAuth()
  @ApiOperation({ summary: "Close the caller's session; its token is refused from then on, on every instance" })
  @ApiOkResponse({ type: LogoutResponseDto })
  @ApiErrors(...BEARER_ERRORS, 'SESSION_TERMINATION_FAILED')
  async logout(@Caller() caller: AuthContext, @RequestId() requestId: string): Promise<LogoutResponseDto> {
    let closed: boolean;
    try {
      closed = await this.sessions.close(caller.sessionId, 'logout', this.clock.nowMs());
    } catch {
      throw new PassportError('SESSION_TERMINATION_FAILED');
    }
    return { message: closed ? 'Session closed.' : 'Session was already closed.', sessionClosed: closed, sessionId: caller.sessionId, requestId };
  }
}
