import { type SchemaObject } from '@nestjs/swagger';

/**
 * The JSON-RPC 2.0 error bodies /mcp answers before a request reaches a transport. Same shape and
 * codes as the SDK's own transport errors (engineering anchors §2.2), so a client sees one dialect.
 */

/** `-32000`: the SDK's code for transport-level rejections (bad request, forbidden host, limits). */
export const RPC_TRANSPORT_ERROR = -32000;
/** `-32600`: JSON-RPC's invalid request (a body the server cannot read as one). */
export const RPC_INVALID_REQUEST = -32600;
/** `-32001`: the SDK's code for an unknown or closed session (HTTP 404). */
export const RPC_SESSION_NOT_FOUND = -32001;

export interface JsonRpcErrorBody {
  readonly jsonrpc: '2.0';
  readonly error: { readonly code: number; readonly message: string };
  readonly id: string | number | null;
}

export function jsonRpcError(
  code: number,
  message: string,
  id: string | number | null = null,
): JsonRpcErrorBody {
  return { jsonrpc: '2.0', error: { code, message }, id };
}

/**
 * An error for a v1 SDK handler to throw: the SDK answers it with this code, message and data as they
 * are. Its own `McpError` writes "MCP error <code>: " into the message, which the SDK's client then
 * prefixes once more.
 */
export function jsonRpcFailure(
  code: number,
  message: string,
  data?: unknown,
): Error & { readonly code: number; readonly data?: unknown } {
  return Object.assign(new Error(message), { code, ...(data === undefined ? {} : { data }) });
}

/** The OpenAPI schema of a JSON-RPC error body, as /mcp answers its transport failures. */
export const JSON_RPC_ERROR_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['jsonrpc', 'error', 'id'],
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} },
    },
    id: { description: 'The request id (a string or a number), or null.' },
  },
};
