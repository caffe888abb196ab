/**
 * @module auth/permissioned-routes
 * Privilege from a passport's `permissioned_routes` (docs/protocol.md §3), carried in the JWT claim
 * `passport_permissionedroutes`: `{"entities":{"methods":{"<exact path>":"<rate>"}}}`. A privileged
 * route is allowed only when its exact path is a key. Missing, malformed or differently shaped
 * values grant nothing (fail closed).
 */

/** The path → rate map, or null when the value is not the documented shape. */
export function parsePermissionedRoutes(json: string | null | undefined): Map<string, string> | null {
  if (typeof json !== 'string' || json.trim() === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return null;
  }
  const methods = objectAt(objectAt(parsed, 'entities'), 'methods');
  if (!methods) return null;
  const routes = new Map<string, string>();
  for (const [path, rate] of Object.entries(methods))
    routes.set(path, typeof rate === 'string' ? rate : JSON.stringify(rate));
  return routes;
}

function objectAt(value: unknown, key: string): Record<string, unknown> | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const inner = Object.prototype.hasOwnProperty.call(value, key)
    ? (value as Record<string, unknown>)[key]
    : undefined;
  return inner !== null && typeof inner === 'object' && !Array.isArray(inner)
    ? (inner as Record<string, unknown>)
    : null;
}

/**
 * Whether `path` can be a key that grants a route: the server compares keys with the route's path as
 * its router writes it, so a key must be a path in that form (as the URL standard leaves it: no dot
 * segments, even percent-encoded, no query or fragment, no control character, space or backslash).
 * Anything else grants nothing, such as `/api/../api/metrics` or a key with a newline in it.
 */
export function isExactRoutePath(path: string): boolean {
  if (!path.startsWith('/') || /[?#\s\p{Cc}\p{Cf}\\]/u.test(path)) return false;
  try {
    return new URL(path, 'http://route.invalid').pathname === path;
  } catch {
    return false;
  }
}

export function isRouteAllowed(permissionedRoutesJson: string | null, path: string): boolean {
  return parsePermissionedRoutes(permissionedRoutesJson)?.has(path) ?? false;
}

/**
 * Routes that are another name of a privileged route: the main route's key grants them too
 * (resolutions: `/api/sessions/list_all` is an alias of `/api/sessions`).
 */
export const PRIVILEGED_ROUTE_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  '/api/sessions/list_all': '/api/sessions',
});

/** What a session's privilege of a route is read from. */
export interface RouteGrantSources {
  /** `passport_permissionedroutes` of the session's JWT: what the login saw. */
  readonly claimed: unknown;
  /** `permissioned_routes` of the passport as the chain holds it now. */
  readonly onChain: string | null | undefined;
  /** A federated session (a passport the family issued for another API): its routes were granted there. */
  readonly federated: boolean;
}

/**
 * Whether `path` is granted by the claim and by the passport as the chain holds it now, both (so a
 * privilege withdrawn on chain ends for open sessions too), an alias by its main route's key as well. A
 * federated session holds no privilege; missing or malformed values grant nothing. The family check
 * (the passport vouched for by a root of this server's family) is the caller's: it needs the chain.
 */
export function isRouteGranted(sources: RouteGrantSources, path: string): boolean {
  if (sources.federated) return false;
  const alias = Object.prototype.hasOwnProperty.call(PRIVILEGED_ROUTE_ALIASES, path)
    ? PRIVILEGED_ROUTE_ALIASES[path]
    : undefined;
  const grants = (routes: string | null): boolean =>
    isRouteAllowed(routes, path) || (alias !== undefined && isRouteAllowed(routes, alias));
  return (
    grants(typeof sources.claimed === 'string' ? sources.claimed : null) && grants(sources.onChain ?? null)
  );
}
