/**
 * What the bearer tier learned about the caller; attached to the request by BearerAuthGuard and read
 * by handlers with `@Caller()`.
 */
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { type FastifyRequest } from 'fastify';
import { type PassportRecord } from '@passport/core';
import { type JwtClaims } from './eddsa-jwt.codec.js';

export interface AuthContext {
  readonly claims: JwtClaims;
  readonly sessionId: string;
  /** The holder's token id (from the session, which the `sub` claim must agree with). */
  readonly tokenId: string;
  /** The holder's passport as the chain reader saw it (≤ 5 s old); null on the logout path, which does not read it. */
  readonly passport: PassportRecord | null;
}

type RequestWithAuth = FastifyRequest & { passportAuth?: AuthContext };

export function attachAuth(request: FastifyRequest, auth: AuthContext): void {
  (request as RequestWithAuth).passportAuth = auth;
}

export function authOf(request: FastifyRequest): AuthContext | undefined {
  return (request as RequestWithAuth).passportAuth;
}

/** The authenticated caller (only on routes behind BearerAuthGuard). */
export const Caller = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthContext => {
  // The HTTP request (as in @RequestId: read without switchToHttp's new closures per call).
  const auth = authOf(ctx.getArgByIndex<FastifyRequest>(0));
  if (!auth) throw new Error('@Caller() used on a route without BearerAuthGuard');
  return auth;
});
