/**
 * `@UseGuards(BearerAuthGuard, PrivilegedGuard)`: the privileged tier. Privilege comes from the
 * passport's `permissioned_routes` (carried in the JWT): the route's exact path must be a key of
 * `entities.methods` (docs/protocol.md §3). Otherwise 403 `PERMISSION_DENIED`.
 *
 * The claim is what the login saw; the passport as the chain holds it now (re-read by the JWT tier,
 * ≤ 5 s old) must grant the route too, so a privilege withdrawn on chain ends for open sessions as it
 * does for new logins (a probe kept admin access for the rest of a 5200 s session). An alias route is
 * granted by its main route's key as well.
 */
import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { type FastifyRequest } from 'fastify';
import { PassportError } from '@passport/core';
import { isRouteAllowed } from '@passport/core/login';
import { authOf } from './auth-context.js';

/** Routes that are another name of a privileged route (resolutions: `list_all` is an alias). */
const ROUTE_ALIASES: Readonly<Record<string, string>> = { '/api/sessions/list_all': '/api/sessions' };

@Injectable()
export class PrivilegedGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const auth = authOf(request);
    if (!auth) throw new PassportError('MISSING_TOKEN');
    const path = request.routeOptions.url ?? request.url.split('?')[0];
    const claimed = auth.claims.passport_permissionedroutes;
    // Without the passport as the chain holds it now, nothing is granted.
    const onChain = auth.passport?.metadata.permissioned_routes ?? null;
    const grants = (routes: string | null) =>
      isRouteAllowed(routes, path) ||
      (ROUTE_ALIASES[path] !== undefined && isRouteAllowed(routes, ROUTE_ALIASES[path]));
    const allowed =
      auth.passport !== null && grants(typeof claimed === 'string' ? claimed : null) && grants(onChain);
    if (!allowed) throw new PassportError('PERMISSION_DENIED', { route: path });
    return true;
  }
}
