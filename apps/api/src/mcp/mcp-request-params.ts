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
  InitializeRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { printableText } from '@passport/core/codecs';
import { jsonRpcError, type JsonRpcErrorBody } from './json-rpc-error.js';
import { MCP_MAX_INITIALIZE_PARAMS_BYTES } from './mcp-settings.js';
import { MCP_RESOURCE_URI_MAX_LENGTH, MCP_TOOL_NAMES, ONE_PAGE_CURSOR } from './mcp-server.factory.js';

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
 * The -32602 answer to `body` when it is a request of a checked method whose params break the method's
 * schema; null otherwise (notifications, other methods and valid requests go on to the SDK as before).
 * A batch (2025-03-26) holding such a request is refused whole, with one error (id null) naming the
 * member: its other answers could not be joined to ours, and the SDK would answer the member -32603
 * with the validator's dump.
 */
export function invalidParamsAnswer(
  body: unknown,
  options: { envelopeRequired?: boolean } = {},
): JsonRpcErrorBody | null {
  if (Array.isArray(body)) {
    for (const [index, message] of body.entries()) {
      // One level only: JSON-RPC has no nested batches, and recursing into `[[[…]]]` would overflow the
      // stack at about 12k levels, well inside the 64 KiB body.
      if (Array.isArray(message)) continue;
      const answer = invalidParamsAnswer(message, options);
      // The member's own code (a task-augmented call is -32601 alone and in a batch alike).
      if (answer)
        return jsonRpcError(
          answer.error.code,
          answer.error.code === ErrorCode.InvalidParams
            ? `Invalid params in batch member [${index}]: ${answer.error.message.replace(/^Invalid params: /, '')}`
            : `Batch member [${index}]: ${answer.error.message}`,
        );
    }
    return null;
  }
  if (typeof body !== 'object' || body === null) return null;
  const { method, id, params } = body as { method?: unknown; id?: unknown; params?: unknown };
  if (typeof method !== 'string' || (typeof id !== 'string' && typeof id !== 'number')) return null;
  // The 2026-07-28 revision's SDK answers a request without its `_meta` envelope itself (HTTP 400).
  const meta = (params as { _meta?: unknown } | null | undefined)?._meta;
  if (options.envelopeRequired && (typeof meta !== 'object' || meta === null || Array.isArray(meta)))
    return null;
  const schema = SCHEMAS.get(method);
  if (!schema) return null;
  const parsed = schema.safeParse(body);
  if (!parsed.success)
    return jsonRpcError(
      ErrorCode.InvalidParams,
      `Invalid params: ${describeIssue(parsed.error.issues[0])}`,
      id,
    );
  return surfaceRuleAnswer(method, (params ?? {}) as Record<string, unknown>, id, {
    sessioned: !options.envelopeRequired,
  });
}

/**
 * What this server's surface refuses of a well-formed request, the same in both eras: an unknown tool
 * (the v1 server answers it as a tool result with isError, the 2.x one as -32602), a
 * `resources/read` uri longer than `get_resource` accepts (else it is echoed back whole in error.data),
 * and a cursor on `tools/list`, which is answered in one page (as the resource lists refuse one). In
 * the sessioned era a task-augmented `tools/call` (2025-11-25 `params.task`) is -32601: every tool
 * says `taskSupport: "forbidden"`, and the v1 SDK answered it -32603 (internal error).
 */
function surfaceRuleAnswer(
  method: string,
  params: Record<string, unknown>,
  id: string | number,
  { sessioned }: { sessioned: boolean },
): JsonRpcErrorBody | null {
  if (method === 'tools/call' && !MCP_TOOL_NAMES.has(params.name as string))
    return jsonRpcError(
      ErrorCode.InvalidParams,
      `Unknown tool: ${JSON.stringify(printableText(String(params.name), 64))}`,
      id,
    );
  if (method === 'tools/call' && sessioned && params.task !== undefined)
    return jsonRpcError(
      ErrorCode.MethodNotFound,
      `Method not found: tool ${JSON.stringify(params.name)} does not run as a task (taskSupport "forbidden")`,
      id,
    );
  if (method === 'tools/list' && params.cursor !== undefined)
    return jsonRpcError(ErrorCode.InvalidParams, ONE_PAGE_CURSOR, id);
  if (method === 'resources/read' && (params.uri as string).length > MCP_RESOURCE_URI_MAX_LENGTH)
    return jsonRpcError(
      ErrorCode.InvalidParams,
      `Invalid params: params.uri: at most ${MCP_RESOURCE_URI_MAX_LENGTH} characters`,
      id,
    );
  return null;
}

/**
 * For a POST without a session: the answer to an `initialize` that cannot start one, or null. An
 * initialize sent as a notification (no id) would be accepted by the SDK (202) and make a session whose
 * id nobody receives, holding a slot of both caps until the idle TTL; one with bad params would be told
 * "Mcp-Session-Id header is required". Params over `MCP_MAX_INITIALIZE_PARAMS_BYTES` are refused too:
 * the session keeps them for its life.
 */
export function invalidInitializeAnswer(body: unknown): JsonRpcErrorBody | null {
  const messages = Array.isArray(body) ? body : [body];
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, id } = message as { method?: unknown; id?: unknown };
    if (method !== 'initialize') continue;
    if (typeof id !== 'string' && typeof id !== 'number')
      return jsonRpcError(
        ErrorCode.InvalidRequest,
        'Invalid Request: initialize must be a request with an id',
      );
    const parsed = (InitializeRequestSchema as RequestSchema).safeParse(message);
    if (!parsed.success)
      return jsonRpcError(
        ErrorCode.InvalidParams,
        `Invalid params: ${describeIssue(parsed.error.issues[0])}`,
        id,
      );
    const size = Buffer.byteLength(JSON.stringify((message as { params?: unknown }).params));
    if (size > MCP_MAX_INITIALIZE_PARAMS_BYTES)
      return jsonRpcError(
        ErrorCode.InvalidParams,
        `Invalid params: initialize params are ${size} bytes of JSON, at most ${MCP_MAX_INITIALIZE_PARAMS_BYTES} (a session keeps them)`,
        id,
      );
  }
  return null;
}

/** One line: the member's path and the validator's sentence (e.g. `params.uri: Invalid input: expected string, received null`). */
function describeIssue(issue: Issue | undefined): string {
  if (!issue) return 'params do not match the method';
  const path = issue.path
    .map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`))
    .join('');
  const where = path.startsWith('.') ? path.slice(1) : path || 'params';
  return `${where}: ${issue.message.replace(/\s+/g, ' ')}`;
}
