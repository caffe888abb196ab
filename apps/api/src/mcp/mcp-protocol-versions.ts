/**
 * The MCP protocol revisions `/mcp` serves, for the router and for the documents that tell clients
 * how to choose. The sessioned list is the v1 SDK's own, so the documents cannot promise a revision
 * the sessioned path would refuse.
 */
import { SUPPORTED_PROTOCOL_VERSIONS as SESSIONED_SDK_VERSIONS } from '@modelcontextprotocol/sdk/types.js';

/** The stateless revision: no initialize, no Mcp-Session-Id, `_meta` on every request. */
export const STATELESS_PROTOCOL_VERSION = '2026-07-28';

/** The sessioned revisions (initialize + Mcp-Session-Id), newest first. */
export const SESSIONED_PROTOCOL_VERSIONS: readonly string[] = [...SESSIONED_SDK_VERSIONS];

/** How a client picks an era on `/mcp`, in one sentence for the discovery documents. */
export const MCP_ERA_CHOICE =
  `Chosen per request on the one endpoint. Stateless (${STATELESS_PROTOCOL_VERSION}, recommended, any instance behind a balancer answers): ` +
  'no initialize and no session; every request carries params._meta with io.modelcontextprotocol/protocolVersion, ' +
  'io.modelcontextprotocol/clientInfo and io.modelcontextprotocol/clientCapabilities, and the headers MCP-Protocol-Version, ' +
  'Mcp-Method (and Mcp-Name for tools/call and resources/read); start with server/discover. ' +
  `Sessioned (${SESSIONED_SDK_VERSIONS[0]} and earlier): POST initialize without _meta, then send the returned ` +
  'Mcp-Session-Id on every request; DELETE /mcp ends the session, which lives on the instance that created it ' +
  '(with STORE=redis: on every instance of the fleet).';
