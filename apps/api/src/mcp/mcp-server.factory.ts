/**
 * Builds the MCP servers of `/mcp` from one definition of its surface: the tools `list_resources` and
 * `get_resource`, and MCP's native `resources/list`, `resources/templates/list` and `resources/read`
 * over the same catalog. Two builders bind that definition to the two SDK lines:
 * - `createMcpServer` (v1 `@modelcontextprotocol/sdk`): the server of one sessioned (2025-era)
 *   transport session;
 * - `createStatelessMcpServer` (2.x `@modelcontextprotocol/server`): the server of one 2026-07-28
 *   request, which that SDK builds per request.
 * Never shared between clients (GHSA-345p-7cg4-v4c7); the handlers are thin closures over the one
 * shared catalog, so a server costs little memory and the two eras cannot drift apart.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import {
  McpServer as StatelessMcpServer,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
} from '@modelcontextprotocol/server';
import { isPassportError } from '@passport/core';
import { printableText } from '@passport/core/codecs';
import { z } from 'zod';
import { type McpResourceCatalog } from './mcp-resource.catalog.js';
import { STATELESS_PROTOCOL_VERSION } from './mcp-protocol-versions.js';
import { jsonRpcFailure } from './json-rpc-error.js';

/** The answer to a cursor on a list this server answers in one page (MCP: -32602). */
export const ONE_PAGE_CURSOR = 'Invalid cursor: this list is answered in one page, and no cursor was issued';

/** The tools both eras serve; a `tools/call` naming another is refused before either SDK (mcp-request-params.ts). */
export const MCP_TOOL_NAMES: ReadonlySet<string> = new Set(['list_resources', 'get_resource']);

/** The longest resource uri read (the `get_resource` tool's bound; `resources/read` is held to it too). */
export const MCP_RESOURCE_URI_MAX_LENGTH = 512;

/** JSON-RPC code the sessioned MCP revisions give to "resource not found". */
export const MCP_RESOURCE_NOT_FOUND_RPC = -32002;

export const SERVER_INSTRUCTIONS =
  'Documentation server of the Passport Identity API. It performs no login. Call list_resources, then ' +
  'get_resource with a uri such as doc:discovery or skills:skills. The same documents are at ' +
  'GET /api/mcp/resources and GET /api/mcp/resource/{uri} over plain HTTP.';

export interface McpServerIdentity {
  readonly name: string;
  readonly version: string;
}

const textResult = (text: string, structuredContent?: Record<string, unknown>): CallToolResult =>
  structuredContent
    ? { content: [{ type: 'text', text }], structuredContent }
    : { content: [{ type: 'text', text }] };

const toolError = (error: unknown): CallToolResult => {
  const body = isPassportError(error)
    ? { error: { code: error.code, message: error.message, details: error.details } }
    : {
        error: { code: 'MCP_RESOURCE_FAILED', message: 'The MCP resource could not be read.', details: null },
      };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
};

// ---- The surface, once for both eras ----

// Built once: a raw shape would be wrapped in a new object schema by every server (one per stateless
// request), and zod compiles each new object schema again on its first parse.
const LIST_RESOURCES_INPUT = z.object({
  limit: z.number().int().min(1).max(100).optional().describe('Items per page, 1 to 100 (default 20).'),
  cursor: z
    .string()
    .regex(/^\d{1,9}$/)
    .optional()
    .describe('The nextCursor of the previous page.'),
});

const GET_RESOURCE_INPUT = z.object({
  uri: z.string().min(1).max(MCP_RESOURCE_URI_MAX_LENGTH).describe('The resource uri, used as-is.'),
});

const LIST_RESOURCES_CONFIG = {
  title: 'List documentation resources',
  description:
    'Lists the documentation resources of this service (uri, name, type). Page with limit (1-100, default 20) and the returned nextCursor.',
  inputSchema: LIST_RESOURCES_INPUT,
  annotations: { readOnlyHint: true, openWorldHint: false },
};

const GET_RESOURCE_CONFIG = {
  title: 'Read a documentation resource',
  description:
    'Returns one resource by uri, e.g. doc:discovery, skills:skills, guide:api, openapi:swagger, ' +
    'token:facial-categories or did:resolve:<tokenId>. Markdown or JSON text.',
  inputSchema: GET_RESOURCE_INPUT,
  annotations: { readOnlyHint: true, openWorldHint: false },
};

/** The handlers of the surface over one catalog; each SDK binding only adapts errors and types. */
function surfaceOf(catalog: McpResourceCatalog) {
  return {
    listResourcesTool: async ({ limit, cursor }: { limit?: number; cursor?: string }) => {
      const page = catalog.page(cursor === undefined ? 0 : Number(cursor), limit ?? 20);
      const body = {
        resources: page.resources.map(({ uri, name, type }) => ({ uri, name, type })),
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      };
      return textResult(JSON.stringify(body), body);
    },
    getResourceTool: async ({ uri }: { uri: string }) => {
      try {
        return textResult((await catalog.read(uri)).text);
      } catch (error) {
        return toolError(error);
      }
    },
    listResources: () => ({
      resources: catalog
        .concrete()
        .map(({ uri, name, type, description }) => ({ uri, name, mimeType: type, description })),
    }),
    listResourceTemplates: () => ({
      resourceTemplates: catalog
        .templates()
        .map(({ uri, name, type, description }) => ({ uriTemplate: uri, name, mimeType: type, description })),
    }),
    /** The read of one native resource; `missing` tells the binding to answer its "not found" error. */
    readResource: async (
      uri: string,
    ): Promise<
      | { found: true; contents: Array<{ uri: string; mimeType: string; text: string }> }
      | { found: false; missing: boolean }
    > => {
      try {
        const content = await catalog.read(uri);
        return { found: true, contents: [{ uri, mimeType: content.type, text: content.text }] };
      } catch (error) {
        return { found: false, missing: isPassportError(error) && error.code === 'MCP_RESOURCE_NOT_FOUND' };
      }
    },
  };
}

/** Builds the server of one new sessioned connection (bound to the catalog and identity by the module). */
export type McpServerFactory = () => McpServer;

/** The v1 server of one 2025-era session. */
export function createMcpServer(catalog: McpResourceCatalog, identity: McpServerIdentity): McpServer {
  const surface = surfaceOf(catalog);
  const server = new McpServer(identity, {
    capabilities: { resources: {} },
    instructions: SERVER_INSTRUCTIONS,
  });
  server.registerTool('list_resources', LIST_RESOURCES_CONFIG, surface.listResourcesTool);
  server.registerTool('get_resource', GET_RESOURCE_CONFIG, surface.getResourceTool);
  // Native resources: the low-level handlers let the catalog serve any did:resolve:<tokenId> URI.
  // Each list is one page, so no cursor was ever issued: one sent is invalid (MCP: -32602).
  const onePage = (cursor: unknown): void => {
    if (cursor !== undefined) throw jsonRpcFailure(ErrorCode.InvalidParams, ONE_PAGE_CURSOR);
  };
  server.server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    onePage(request.params?.cursor);
    return surface.listResources();
  });
  server.server.setRequestHandler(ListResourceTemplatesRequestSchema, async (request) => {
    onePage(request.params?.cursor);
    return surface.listResourceTemplates();
  });
  server.server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    const read = await surface.readResource(uri);
    if (read.found) return { contents: read.contents };
    // The client's uri echoed printable (a review: C1 and bidi controls came back raw in a 200).
    const shown = printableText(uri, MCP_RESOURCE_URI_MAX_LENGTH);
    if (read.missing) throw jsonRpcFailure(MCP_RESOURCE_NOT_FOUND_RPC, 'Resource not found', { uri: shown });
    throw jsonRpcFailure(ErrorCode.InternalError, 'The MCP resource could not be read.', { uri: shown });
  });
  // Registering tools and resources makes the v1 server announce listChanged: true; the lists never
  // change at run time, and the stateless era says false, so both eras agree.
  server.server.registerCapabilities({ tools: { listChanged: false }, resources: { listChanged: false } });
  return server;
}

/** The 2.x server of one 2026-07-28 request: the same tools and resources, no session. */
export function createStatelessMcpServer(
  catalog: McpResourceCatalog,
  identity: McpServerIdentity,
): StatelessMcpServer {
  const surface = surfaceOf(catalog);
  const server = new StatelessMcpServer(identity, {
    // The lists never change at run time: saying so also makes the SDK end a listen stream at once.
    capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
    instructions: SERVER_INSTRUCTIONS,
    supportedProtocolVersions: [STATELESS_PROTOCOL_VERSION],
  });
  server.registerTool('list_resources', LIST_RESOURCES_CONFIG, surface.listResourcesTool);
  server.registerTool('get_resource', GET_RESOURCE_CONFIG, surface.getResourceTool);
  const onePage = (cursor: unknown): void => {
    if (cursor !== undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, ONE_PAGE_CURSOR);
  };
  server.server.setRequestHandler('resources/list', async (request) => {
    onePage(request.params?.cursor);
    return surface.listResources();
  });
  server.server.setRequestHandler('resources/templates/list', async (request) => {
    onePage(request.params?.cursor);
    return surface.listResourceTemplates();
  });
  server.server.setRequestHandler('resources/read', async (request) => {
    const uri = request.params.uri;
    const read = await surface.readResource(uri);
    if (read.found) return { contents: read.contents };
    // The 2026-07-28 revision answers a read miss with -32602 and data.uri (earlier ones: -32002).
    const shown = printableText(uri, MCP_RESOURCE_URI_MAX_LENGTH);
    if (read.missing) throw new ResourceNotFoundError(shown, 'Resource not found');
    throw new ProtocolError(ProtocolErrorCode.InternalError, 'The MCP resource could not be read.', {
      uri: shown,
    });
  });
  return server;
}
