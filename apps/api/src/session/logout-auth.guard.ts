/**
 * `@UseGuards(LogoutAuthGuard)`: the JWT tier as logout needs it. An agent can always close its own
 * session: a validly signed token past its `exp` is accepted while the session is open, and neither
 * the passport's quota nor its chain status can refuse the logout.
 */
import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { type FastifyRequest } from 'fastify';
import { attachAuth } from './auth-context.js';
import { BearerAuthenticator } from './bearer.authenticator.js';

@Injectable()
export class LogoutAuthGuard implements CanActivate {
  constructor(private readonly authenticator: BearerAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    attachAuth(
      request,
      await this.authenticator.authenticate(request.headers.authorization, { forLogout: true }),
    );
    return true;
  }
}
