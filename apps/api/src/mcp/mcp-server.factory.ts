/**
 * Builds the McpServer of one transport session: the tools `list_resources` and `get_resource`,
 * and MCP's native `resources/list`, `resources/templates/list` and `resources/read` over the same
 * catalog. A new server per session (never shared between clients: GHSA-345p-7cg4-v4c7); the
 * handlers are thin closures over the one shared catalog, so a session costs little memory.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { isPassportError } from '@passport/core';
import { z } from 'zod';
import { type McpResourceCatalog } from './mcp-resource.catalog.js';
import { DID_RESOLVE_TEMPLATE } from './mcp-resource.manifest.js';

/** JSON-RPC code the MCP specification gives to "resource not found". */
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

/** Builds the server of one new session (bound to the catalog and identity by the module). */
export type McpServerFactory = () => McpServer;

export function createMcpServer(catalog: McpResourceCatalog, identity: McpServerIdentity): McpServer {
  const server = new McpServer(identity, {
    capabilities: { resources: {} },
    instructions: SERVER_INSTRUCTIONS,
  });

  server.registerTool(
    'list_resources',
    {
      title: 'List documentation resources',
      description:
        'Lists the documentation resources of this service (uri, name, type). Page with limit (1-100, default 20) and the returned nextCursor.',
      inputSchema: {
        limit: z.number().int().min(1).max(100).optional().describe('Items per page, 1 to 100 (default 20).'),
        cursor: z
          .string()
          .regex(/^\d{1,9}$/)
          .optional()
          .describe('The nextCursor of the previous page.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ limit, cursor }) => {
      const page = catalog.page(cursor === undefined ? 0 : Number(cursor), limit ?? 20);
      const body = {
        resources: page.resources.map(({ uri, name, type }) => ({ uri, name, type })),
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      };
      return textResult(JSON.stringify(body), body);
    },
  );

  server.registerTool(
    'get_resource',
    {
      title: 'Read a documentation resource',
      description:
        'Returns one resource by uri, e.g. doc:discovery, skills:skills, guide:api, openapi:swagger, ' +
        'token:facial-categories or did:resolve:<tokenId>. Markdown or JSON text.',
      inputSchema: { uri: z.string().min(1).max(512).describe('The resource uri, used as-is.') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ uri }) => {
      try {
        return textResult((await catalog.read(uri)).text);
      } catch (error) {
        return toolError(error);
      }
    },
  );

  // Native resources: the low-level handlers let the catalog serve any did:resolve:<tokenId> URI.
  server.server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: catalog
      .concrete()
      .map(({ uri, name, type, description }) => ({ uri, name, mimeType: type, description })),
  }));
  server.server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: catalog
      .all()
      .filter((item) => item.uri === DID_RESOLVE_TEMPLATE)
      .map(({ uri, name, type, description }) => ({ uriTemplate: uri, name, mimeType: type, description })),
  }));
  server.server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    try {
      const content = await catalog.read(uri);
      return { contents: [{ uri, mimeType: content.type, text: content.text }] };
    } catch (error) {
      if (isPassportError(error) && error.code === 'MCP_RESOURCE_NOT_FOUND') {
        throw new McpError(MCP_RESOURCE_NOT_FOUND_RPC, 'Resource not found', { uri });
      }
      throw new McpError(ErrorCode.InternalError, 'The MCP resource could not be read.', { uri });
    }
  });

  return server;
}
