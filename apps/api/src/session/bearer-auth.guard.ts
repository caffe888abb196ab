/**
 * `@UseGuards(BearerAuthGuard)`: the JWT tier. Authenticates the Authorization header, applies the
 * passport's own rate limit, attaches the caller for `@Caller()`, and sets `New-Token` when the token
 * is at its renewal point (see TokenRenewer).
 */
import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { TokenRenewer } from './token-renewer.js';
import { attachAuth, type AuthContext } from './auth-context.js';
import { BearerAuthenticator } from './bearer.authenticator.js';
import { PassportRateLimiter } from './passport-rate-limiter.js';

@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly authenticator: BearerAuthenticator,
    private readonly rateLimiter: PassportRateLimiter,
    private readonly renewer: TokenRenewer,
  ) {}

  /**
   * Synchronous when nothing needs waiting for (the usual request: see BearerAuthenticator.authenticateSync,
   * no quota, no renewal due), so the tier adds no promise hops of its own; a refusal is thrown or rejected.
   */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    // The HTTP request and reply are the context's first two arguments (what switchToHttp() returns
    // them from), read without switchToHttp, which adds three new closures to the context per call.
    const request = context.getArgByIndex<FastifyRequest>(0);
    const auth = this.authenticator.authenticateSync(request.headers.authorization);
    if (auth instanceof Promise) return auth.then((known) => this.admit(context, request, known));
    return this.admit(context, request, auth);
  }

  private admit(
    context: ExecutionContext,
    request: FastifyRequest,
    auth: AuthContext,
  ): boolean | Promise<boolean> {
    // Most passports have no quota: then there is nothing to wait for.
    const quota = this.rateLimiter.check(auth);
    if (quota !== undefined) return quota.then(() => this.attach(context, request, auth));
    return this.attach(context, request, auth);
  }

  private attach(
    context: ExecutionContext,
    request: FastifyRequest,
    auth: AuthContext,
  ): boolean | Promise<boolean> {
    attachAuth(request, auth);
    const renewal = this.renewer.renewOnto(auth, context.getArgByIndex<FastifyReply>(1));
    return renewal === null ? true : renewal.then(() => true);
  }
}
