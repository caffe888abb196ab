/**
 * `@UseGuards(BearerAuthGuard)`: the JWT tier. Authenticates the Authorization header, applies the
 * passport's own rate limit, and attaches the caller for `@Caller()`.
 */
import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { type FastifyRequest } from 'fastify';
import { attachAuth } from './auth-context.js';
import { BearerAuthenticator } from './bearer.authenticator.js';
import { PassportRateLimiter } from './passport-rate-limiter.js';

@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly authenticator: BearerAuthenticator,
    private readonly rateLimiter: PassportRateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const auth = await this.authenticator.authenticate(request.headers.authorization);
    await this.rateLimiter.check(auth);
    attachAuth(request, auth);
    return true;
  }
}
