/**
 * Whether an authenticated caller holds the privilege of a route: the route's exact path is a key of
 * `entities.methods` in `permissioned_routes`, both in the claim (what the login saw) and on the passport
 * as the chain holds it now (re-read by the JWT tier, ≤ 5 s old), so a privilege withdrawn on chain ends
 * for open sessions as it does for new logins. An alias route is granted by its main route's key as well.
 * One rule for the privileged tier (PrivilegedGuard) and for a route that grades its callers
 * (`/api/signclient` signs privileges only for a caller privileged for it: a probe signed them with a
 * privilege withdrawn on chain, read from the claim alone).
 */
import { isRouteAllowed } from '@passport/core/login';
import { type AuthContext } from './auth-context.js';

/** Routes that are another name of a privileged route (resolutions: `list_all` is an alias). */
const ROUTE_ALIASES: Readonly<Record<string, string>> = { '/api/sessions/list_all': '/api/sessions' };

export function privilegeGranted(auth: AuthContext, path: string): boolean {
  if (auth.passport === null) return false; // without the passport as the chain holds it now, nothing
  const claimed = auth.claims.passport_permissionedroutes;
  const onChain = auth.passport.metadata.permissioned_routes ?? null;
  const alias = ROUTE_ALIASES[path];
  const grants = (routes: string | null) =>
    isRouteAllowed(routes, path) || (alias !== undefined && isRouteAllowed(routes, alias));
  return grants(typeof claimed === 'string' ? claimed : null) && grants(onChain);
}
