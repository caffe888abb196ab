/**
 * A body that cannot be read (not JSON, not UTF-8, another media type or coding, too large) sent to a
 * route of the MCP transport is an MCP transport failure, which the specification answers with a
 * JSON-RPC 2.0 error object (`id` null) rather than the ErrorResponse envelope: -32700 for a body that
 * is not JSON, -32000 (the SDK's transport code) for the rest. The HTTP status stays the envelope's. A
 * route asks for it with `@RouteConfig({ [ERROR_SHAPE]: 'json-rpc' })` (platform names no feature's path).
 */
import { type FastifyRequest } from 'fastify';
import { type PassportError } from '@passport/core';

const BODY_FAILURE_CODES: ReadonlySet<string> = new Set([
  'INVALID_JSON',
  'UNSUPPORTED_MEDIA_TYPE',
  'REQUEST_HEADER_TOO_LARGE',
  'VALIDATION_FAILED',
]);

/** The route config key that chooses how a route's body failures are answered. */
export const ERROR_SHAPE = 'errorShape';

export interface JsonRpcBodyFailure {
  readonly jsonrpc: '2.0';
  readonly error: { readonly code: number; readonly message: string };
  readonly id: null;
}

/** The JSON-RPC answer to `error` when it is a body failure of a route that asked for one; null otherwise. */
export function jsonRpcBodyFailure(
  request: FastifyRequest,
  error: PassportError<string>,
): JsonRpcBodyFailure | null {
  const config = request.routeOptions?.config as { readonly [ERROR_SHAPE]?: unknown } | undefined;
  if (config?.[ERROR_SHAPE] !== 'json-rpc' || !BODY_FAILURE_CODES.has(error.code)) return null;
  return error.code === 'INVALID_JSON'
    ? { jsonrpc: '2.0', error: { code: -32700, message: `Parse error: ${error.message}` }, id: null }
    : { jsonrpc: '2.0', error: { code: -32000, message: error.message }, id: null };
}
