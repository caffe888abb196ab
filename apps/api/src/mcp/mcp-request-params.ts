/**
 * Checks the params of a single JSON-RPC request to /mcp against the MCP schema of its method before
 * either SDK sees it. Both SDKs parse a request with the method's schema and let the validator's error
 * escape: the client then got -32603 (internal error), or -32602 from the 2.x SDK, with the validator's
 * multi-line JSON dump as the message. A client's mistake is -32602 (invalid params) with one line
 * naming the parameter. The schemas are the v1 SDK's own (the same shapes in every revision this
 * server speaks; they let unknown members through, so the 2026-07-28 `_meta` envelope passes).
 */
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { jsonRpcError, type JsonRpcErrorBody } from './json-rpc-error.js';

/** What the check needs of a schema: the SDK's zod schemas all have it. */
interface RequestSchema {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: readonly Issue[] } };
}

interface Issue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

const SCHEMAS: ReadonlyMap<string, RequestSchema> = new Map<string, RequestSchema>([
  ['resources/read', ReadResourceRequestSchema],
  ['resources/list', ListResourcesRequestSchema],
  ['resources/templates/list', ListResourceTemplatesRequestSchema],
  ['tools/call', CallToolRequestSchema],
  ['tools/list', ListToolsRequestSchema],
]);

/**
 * The -32602 answer to `body` when it is one request of a checked method whose params break the
 * method's schema; null otherwise (notifications, batches, other methods and valid requests go on to
 * the SDK as before).
 */
export function invalidParamsAnswer(body: unknown, options: { envelopeRequired?: boolean } = {}): JsonRpcErrorBody | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const { method, id, params } = body as { method?: unknown; id?: unknown; params?: unknown };
  if (typeof method !== 'string' || (typeof id !== 'string' && typeof id !== 'number')) return null;
  // The 2026-07-28 revision's SDK answers a request without its `_meta` envelope itself (HTTP 400).
  const meta = (params as { _meta?: unknown } | null | undefined)?._meta;
  if (options.envelopeRequired && (typeof meta !== 'object' || meta === null)) return null;
  const schema = SCHEMAS.get(method);
  if (!schema) return null;
  const parsed = schema.safeParse(body);
  if (parsed.success) return null;
  return jsonRpcError(ErrorCode.InvalidParams, `Invalid params: ${describeIssue(parsed.error.issues[0])}`, id);
}

/** One line: the member's path and the validator's sentence (e.g. `params.uri: Invalid input: expected string, received null`). */
function describeIssue(issue: Issue | undefined): string {
  if (!issue) return 'params do not match the method';
  const path = issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('');
  const where = path.startsWith('.') ? path.slice(1) : path || 'params';
  return `${where}: ${issue.message.replace(/\s+/g, ' ')}`;
}
