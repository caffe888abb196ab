/**
 * CORS for browser pages on other origins (CORS_ORIGINS; off when empty): the headers a page needs to
 * log in, call JWT routes and MCP, and read what the API answers. `New-Token` must be exposed, or a
 * page's `createRenewingFetch` never sees a renewal and its session ends with the first token. No
 * credentials mode: tokens travel in `Authorization`, never in cookies. Preflights are cached 10 min.
 */
import { type FastifyCorsOptions } from '@fastify/cors';
import { type FastifyRequest } from 'fastify';

export const CORS_ALLOWED_HEADERS: readonly string[] = [
  'Authorization',
  'Content-Type',
  'X-Request-Id',
  'X-Correlation-Id',
  'Mcp-Session-Id',
  'MCP-Protocol-Version',
  'Mcp-Method',
  'Mcp-Name',
  'Last-Event-ID',
];

export const CORS_EXPOSED_HEADERS: readonly string[] = [
  'New-Token',
  'X-Request-Id',
  'Retry-After',
  'Mcp-Session-Id',
  'WWW-Authenticate',
];

/**
 * The per-request options of @fastify/cors (its options delegate): CORS headers only for an allowed
 * Origin, and a preflight answered only when it is one (Origin and Access-Control-Request-Method).
 * Anything else gets no CORS headers and goes on as without CORS: a plain OPTIONS, or one from another
 * origin, is answered by the app in its envelope (the plugin's strict mode answered "Invalid Preflight
 * Request" in text/plain, without a request id).
 */
export function corsOptions(
  origins: readonly string[] | '*',
): (request: FastifyRequest, callback: (error: Error | null, options: FastifyCorsOptions) => void) => void {
  const allowed = origins === '*' ? () => true : (origin: string) => origins.includes(origin);
  const options: FastifyCorsOptions = {
    methods: ['GET', 'HEAD', 'POST', 'DELETE'],
    allowedHeaders: [...CORS_ALLOWED_HEADERS],
    exposedHeaders: [...CORS_EXPOSED_HEADERS],
    credentials: false,
    maxAge: 600,
    strictPreflight: false,
  };
  const off: FastifyCorsOptions = { origin: false };
  return (request, callback) => {
    const { origin } = request.headers;
    const answers =
      typeof origin === 'string' &&
      allowed(origin) &&
      (request.method !== 'OPTIONS' || request.headers['access-control-request-method'] !== undefined);
    callback(null, answers ? { ...options, origin: origins === '*' ? '*' : origin } : off);
  };
}

/** Whether CORS is on at all. */
export function corsEnabled(origins: readonly string[] | '*'): boolean {
  return origins === '*' || origins.length > 0;
}
