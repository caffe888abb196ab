/**
 * Which MCP protocol era a request to `/mcp` belongs to. Since the 2026-07-28 revision a request
 * carries its protocol version, client info and capabilities in `params._meta` (mirrored in the
 * `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers) and needs no session; earlier
 * revisions open a session with `initialize` and send `Mcp-Session-Id`. The decision is the 2.x SDK's
 * own classifier, so our routing can never disagree with the handler that serves the new era: every
 * request that carries the envelope claim (even a malformed or unsupported one) goes to that handler,
 * which owns those error answers; everything else keeps the sessioned path.
 */
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { type FastifyRequest } from 'fastify';
import { STATELESS_PROTOCOL_VERSION } from './mcp-protocol-versions.js';

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
};

/**
 * `stateless` when the request belongs to the 2026-07-28 era (its malformed forms included), `legacy`
 * otherwise, and `unreadable` when the classifier itself fails on the body: a `_meta` capability nested
 * a few thousand objects deep overflows the stack of the SDK's schema check, which must be a 400, not a
 * 500 with a stack trace logged per request.
 */
export function protocolEraOf(
  request: FastifyRequest,
): 'stateless' | 'stateless-refused' | 'legacy' | 'unreadable' {
  if (request.method !== 'POST') return 'legacy';
  try {
    const outcome = classifyInboundRequest({
      httpMethod: request.method,
      protocolVersionHeader: header(request, 'mcp-protocol-version'),
      mcpMethodHeader: header(request, 'mcp-method'),
      mcpNameHeader: header(request, 'mcp-name'),
      body: request.body,
    });
    if (outcome.kind === 'legacy') return 'legacy';
    // The classifier takes any version for the envelope's era; the handler refuses one it does not serve
    // (400 -32022). Refused here too, so this server's own checks and the tool-call bucket do not answer
    // or charge it first (a mutation probe: a tools/call of an unknown tool in 2099-01-01 was answered
    // 200 "Unknown tool").
    if (outcome.kind === 'reject' || namesOtherVersion(request)) return 'stateless-refused';
    // The handler then refuses a request without a standard header the revision requires, or whose
    // Mcp-Name disagrees with the body (400 -32020, its "standard-header" rung, which the classifier
    // leaves to it). Refused here too, for the same
    // reason (a hostile-holder probe: without Mcp-Method, a tools/call of an unknown tool was answered 200
    // "Unknown tool", and 100 refused tool calls spent the address's minute, so its next good one got 429).
    if (
      outcome.kind === 'modern' &&
      outcome.messageKind === 'request' &&
      refusedOnStandardHeaders(request, outcome.message)
    )
      return 'stateless-refused';
    return 'stateless';
  } catch {
    return 'unreadable';
  }
}

/**
 * The body field the `Mcp-Name` header must carry, by method: the SDK's table (SEP-2243's standard request
 * headers, and SEP-2663's for tasks).
 */
const MCP_NAME_SOURCE: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/**
 * Whether the SDK's handler refuses a stateless-era request on its standard headers (400 -32020): without
 * `MCP-Protocol-Version` or `Mcp-Method`, or, where the body names the tool, resource or task the
 * `Mcp-Name` header mirrors, without that header, with one whose Base64 form (`=?base64?…?=`) is not
 * canonical Base64 of UTF-8, or with one that (decoded) names another. Read as the stateless endpoint
 * forwards headers (a string value, an empty one included, its spaces and tabs at either end dropped):
 * every request counted here the handler refuses, so none is served without this server's checks (a
 * review: an `Mcp-Name` naming another tool was answered 200 "Unknown tool" and charged, the SDK's 400
 * coming only once this server's checks passed).
 */
function refusedOnStandardHeaders(
  request: FastifyRequest,
  message: { method: string; params?: unknown },
): boolean {
  if (header(request, 'mcp-protocol-version') === undefined || header(request, 'mcp-method') === undefined)
    return true;
  const field = Object.hasOwn(MCP_NAME_SOURCE, message.method) ? MCP_NAME_SOURCE[message.method] : undefined;
  if (field === undefined) return false;
  const params = message.params;
  const raw =
    typeof params === 'object' && params !== null && !Array.isArray(params)
      ? (params as Record<string, unknown>)[field]
      : undefined;
  const bodyValue = typeof raw === 'string' ? raw : undefined;
  const name = header(request, 'mcp-name');
  if (name === undefined) return bodyValue !== undefined;
  const decoded = decodedMcpName(name.replace(/^[ \t]+|[ \t]+$/g, ''));
  return decoded === undefined || (bodyValue !== undefined && decoded !== bodyValue);
}

const BASE64_PREFIX = '=?base64?';
const BASE64_SUFFIX = '?=';
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** An `Mcp-Name` value as it names: itself, or its Base64 form's UTF-8 text; undefined when that is not valid. */
function decodedMcpName(value: string): string | undefined {
  // As the SDK reads it: `=?base64?=` too is the form (its prefix and suffix overlap), of nothing.
  if (!value.startsWith(BASE64_PREFIX) || !value.endsWith(BASE64_SUFFIX)) return value;
  const base64 = value.slice(
    BASE64_PREFIX.length,
    Math.max(BASE64_PREFIX.length, value.length - BASE64_SUFFIX.length),
  );
  if (!CANONICAL_BASE64.test(base64)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(base64, 'base64'));
  } catch {
    return undefined;
  }
}

/** Whether the header or a message's `_meta` names a protocol version other than the stateless era's. */
function namesOtherVersion(request: FastifyRequest): boolean {
  const version = header(request, 'mcp-protocol-version');
  if (version !== undefined && version !== STATELESS_PROTOCOL_VERSION) return true;
  const messages = Array.isArray(request.body) ? request.body : [request.body];
  return messages.some((message) => {
    const meta = (message as { params?: { _meta?: Record<string, unknown> } } | null)?.params?._meta;
    const claimed = typeof meta === 'object' && meta !== null ? meta[PROTOCOL_VERSION_KEY] : undefined;
    return typeof claimed === 'string' && claimed !== STATELESS_PROTOCOL_VERSION;
  });
}

const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

/** Whether a message of `body` carries the stateless era's envelope claim (`params._meta`'s protocol version). */
export function claimsStatelessEnvelope(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((message) => {
    const meta = (message as { params?: { _meta?: unknown } } | null)?.params?._meta;
    return typeof meta === 'object' && meta !== null && PROTOCOL_VERSION_KEY in meta;
  });
}
