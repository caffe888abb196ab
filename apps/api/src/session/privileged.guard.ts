/**
 * `@UseGuards(BearerAuthGuard, PrivilegedGuard)`: the privileged tier. Privilege comes from the
 * passport's `permissioned_routes` (carried in the JWT): the route's exact path must be a key of
 * `entities.methods` (docs/protocol.md §3). Otherwise 403 `PERMISSION_DENIED`.
 *
 * The claim is what the login saw; the passport as the chain holds it now (re-read by the JWT tier,
 * ≤ 5 s old) must grant the route too, so a privilege withdrawn on chain ends for open sessions as it
 * does for new logins (not only when the session ends). An alias route is
 * granted by its main route's key as well. A refusal is logged (`audit: privilege_denied`).
 */
import { type CanActivate, type ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { type FastifyRequest } from 'fastify';
import { PassportError } from '@passport/core';
import { PRIVILEGED_ROUTE_ALIASES } from '@passport/core/login';
import { authOf } from './auth-context.js';
import { PrivilegeGrants } from './privilege-grant.js';

@Injectable()
export class PrivilegedGuard implements CanActivate {
  private readonly logger = new Logger('Privilege');

  constructor(private readonly grants: PrivilegeGrants) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const auth = authOf(request);
    if (!auth) throw new PassportError('MISSING_TOKEN');
    const path = request.routeOptions.url ?? request.url.split('?')[0];
    if (!(await this.grants.granted(auth, path))) {
      // The audit trail of a refused attempt on a privileged route (bounded by the passport's quota
      // and the per-address rate, which every request passes first).
      this.logger.log({
        msg: `privileged route ${path} refused to ${auth.tokenId}`,
        audit: 'privilege_denied',
        route: path,
        tokenId: auth.tokenId,
        sessionId: auth.sessionId,
        requestId: request.id,
      });
      throw new PassportError('PERMISSION_DENIED', { route: path, hint: privilegeHint(path) });
    }
    return true;
  }
}

/**
 * What grants `path` (`details.hint`; the code, message and `details.route` are as before): an admin
 * probe read only "not permitted" and had to find `permissioned_routes` in the docs. It names no
 * reason of this passport's refusal (route, family or federation): the same text for every caller.
 */
export function privilegeHint(path: string): string {
  const key = Object.prototype.hasOwnProperty.call(PRIVILEGED_ROUTE_ALIASES, path)
    ? PRIVILEGED_ROUTE_ALIASES[path]
    : path;
  return (
    `a passport of this server's own family whose permissioned_routes names "${key}" ` +
    `({"entities":{"methods":{"${key}":"<rate>"}}}; passport mint --admin-route ${key}), logged in on this server`
  );
}
