/**
 * What the v1 SDK's transport refuses of a sessioned POST before it serves any message of it, read
 * here so that a batch it will refuse is not charged a token per message (a client that sent two such
 * batches of 100 found its burst spent and its corrected batch refused). Its own rules, in its order
 * (`webStandardStreamableHttp.js`, handlePostRequest): an Accept header that does not list both
 * `application/json` and `text/event-stream` (406); an initialize in a batch of more than one message,
 * or sent on a session (400); on a session, an `MCP-Protocol-Version` header naming a revision it does
 * not serve (400). The transport still answers those requests itself, with its own words.
 */
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { SESSIONED_PROTOCOL_VERSIONS } from './mcp-protocol-versions.js';

export interface SessionedPost {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: unknown;
}

/** Whether the transport will refuse this POST whole, serving none of its messages. */
export function sessionedTransportRefuses(request: SessionedPost, onSession: boolean): boolean {
  const accept = request.headers.accept;
  const acceptText = Array.isArray(accept) ? accept.join(', ') : (accept ?? '');
  // The SDK's own test: the two media types anywhere in the header (a substring check).
  if (!acceptText.includes('application/json') || !acceptText.includes('text/event-stream')) return true;
  const messages: unknown[] = Array.isArray(request.body) ? request.body : [request.body];
  if (messages.some((message) => isInitializeRequest(message))) return onSession || messages.length > 1;
  const version = request.headers['mcp-protocol-version'];
  return onSession && typeof version === 'string' && !SESSIONED_PROTOCOL_VERSIONS.includes(version);
}

/**
 * The `MCP-Protocol-Version` header of a request on a session when it names a revision the transport
 * does not serve (it answers 400 and serves nothing), else undefined. An initialize is not checked: its
 * version is negotiated in its body.
 */
export function unsupportedSessionedVersion(
  request: SessionedPost & { readonly method: string },
): string | undefined {
  const version = request.headers['mcp-protocol-version'];
  if (typeof version !== 'string' || SESSIONED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  const messages: unknown[] = Array.isArray(request.body) ? request.body : [request.body];
  if (request.method === 'POST' && messages.some((message) => isInitializeRequest(message))) return undefined;
  return version;
}
