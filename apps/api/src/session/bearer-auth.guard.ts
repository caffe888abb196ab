/**
 * `@UseGuards(BearerAuthGuard)`: the JWT tier. Authenticates the Authorization header, applies the
 * passport's own rate limit, attaches the caller for `@Caller()`, and sets `New-Token` when the token
 * is at its renewal point (see TokenRenewer).
 */
import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { NEW_TOKEN_HEADER, TokenRenewer } from './token-renewer.js';
import { attachAuth } from './auth-context.js';
import { BearerAuthenticator } from './bearer.authenticator.js';
import { PassportRateLimiter } from './passport-rate-limiter.js';

@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly authenticator: BearerAuthenticator,
    private readonly rateLimiter: PassportRateLimiter,
    private readonly renewer: TokenRenewer,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const auth = await this.authenticator.authenticate(request.headers.authorization);
    // Most passports have no quota: then there is nothing to wait for (one promise fewer per request).
    const quota = this.rateLimiter.check(auth);
    if (quota !== undefined) await quota;
    attachAuth(request, auth);
    const renewal = this.renewer.renewIfDue(auth);
    if (renewal !== null) {
      const token = await renewal;
      if (token !== null) void http.getResponse<FastifyReply>().header(NEW_TOKEN_HEADER, token);
    }
    return true;
  }
}
