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

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
};

/** True when the request belongs to the stateless (2026-07-28) era, including its malformed forms. */
export function isStatelessEraRequest(request: FastifyRequest): boolean {
  if (request.method !== 'POST') return false;
  const outcome = classifyInboundRequest({
    httpMethod: request.method,
    protocolVersionHeader: header(request, 'mcp-protocol-version'),
    mcpMethodHeader: header(request, 'mcp-method'),
    mcpNameHeader: header(request, 'mcp-name'),
    body: request.body,
  });
  return outcome.kind !== 'legacy';
}
