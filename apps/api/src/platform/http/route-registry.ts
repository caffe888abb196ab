/**
 * Remembers every route Fastify registers (method and URL pattern) so that a request the router
 * cannot match can be told apart: a path that exists under other methods is 405 `METHOD_NOT_ALLOWED`
 * (with `Allow`), anything else 404 `ENDPOINT_NOT_FOUND`. Fed by Fastify's `onRoute` hook, which
 * `createApp` attaches before Nest registers its routes, so routes added by any module are covered.
 */
import { Injectable } from '@nestjs/common';

interface RoutePattern {
  readonly regex: RegExp;
  readonly methods: Set<string>;
}

export interface RouteLike {
  readonly method: string | readonly string[];
  readonly url: string;
}

/**
 * `/a/:id/b` → `^/a/[^/]+/b$`; `*` matches the rest of the path. Exact, like the router: `/a/` is not
 * `/a` (the router answers 404 for it, so a 405 listing `/a`'s methods would be false).
 */
export function patternToRegex(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*';
      if (segment.startsWith(':')) return '[^/]+';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source}$`);
}

/**
 * The path the router matches for a request target: an absolute-form target's path (RFC 9112 §3.2.2),
 * without query or fragment, percent-decoded except for the reserved characters the router leaves
 * encoded (`decodeURI`: `%2F` is no separator). Otherwise `DELETE /api/%69dentity/verify`, the absolute
 * form and a `#fragment` reach the route under POST, and are 404 under other methods.
 */
export function routablePath(target: string): string {
  const absolute = /^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i.exec(target);
  const path = (absolute ? target.slice(absolute[0].length) || '/' : target).split(/[?#]/, 1)[0] ?? '';
  if (!path.includes('%')) return path;
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

@Injectable()
export class RouteRegistry {
  private readonly patterns = new Map<string, RoutePattern>();

  add(route: RouteLike): void {
    // CORS's catch-all OPTIONS route (CORS_ORIGINS) answers preflights only; counted, it would list
    // OPTIONS as allowed on every path, and a plain OPTIONS is still 405.
    if (route.url === '*' && route.method === 'OPTIONS') return;
    const methods = Array.isArray(route.method) ? route.method : [route.method as string];
    let pattern = this.patterns.get(route.url);
    if (!pattern) {
      pattern = { regex: patternToRegex(route.url), methods: new Set() };
      this.patterns.set(route.url, pattern);
    }
    for (const method of methods) pattern.methods.add(method.toUpperCase());
  }

  /** Methods registered for a concrete request target, read as the router reads it; empty when the path is unknown. */
  allowedMethods(rawUrl: string): string[] {
    const path = routablePath(rawUrl);
    const found = new Set<string>();
    for (const pattern of this.patterns.values()) {
      if (pattern.regex.test(path)) for (const m of pattern.methods) found.add(m);
    }
    return [...found].sort();
  }
}
