/**
 * `@UseGuards(BearerAuthGuard, PrivilegedGuard)`: the privileged tier. Privilege comes from the
 * passport's `permissioned_routes` (carried in the JWT): the route's exact path must be a key of
 * `entities.methods` (docs/protocol.md §3). Otherwise 403 `PERMISSION_DENIED`.
 */
import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { type FastifyRequest } from 'fastify';
import { PassportError } from '@passport/core';
import { isRouteAllowed } from '@passport/core/login';
import { authOf } from './auth-context.js';

@Injectable()
export class PrivilegedGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const auth = authOf(request);
    if (!auth) throw new PassportError('MISSING_TOKEN');
    const path = request.routeOptions.url ?? request.url.split('?')[0];
    const routes = auth.claims.passport_permissionedroutes;
    if (!isRouteAllowed(typeof routes === 'string' ? routes : null, path)) {
      throw new PassportError('PERMISSION_DENIED', { route: path });
    }
    return true;
  }
}
