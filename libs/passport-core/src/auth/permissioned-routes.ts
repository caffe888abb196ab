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
