/**
 * The MCP documentation over plain HTTP, for agents without an MCP client: the resource list, one
 * resource by URI (used as-is: `GET /api/mcp/resource/doc:discovery`), and the OpenAPI document.
 * Errors use the app's ErrorResponse envelope (see the MCP reference document for why).
 */
import { Controller, Get, Inject, Param, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { type FastifyReply } from 'fastify';
import { parseOffsetPageQuery } from '@passport/core/profile';
import { ApiErrors } from '../platform/openapi/api-errors.decorator.js';
import { ApiPageQuery } from '../platform/openapi/api-page-query.decorator.js';
import { type McpResourceCatalog } from './mcp-resource.catalog.js';
import { MARKDOWN } from './mcp-resource.manifest.js';
import { MCP_LIVE_DOCUMENTS, MCP_RESOURCE_CATALOG } from './mcp.di-tokens.js';
import { type LiveDocumentSources } from './mcp-resource.catalog.js';
import { mcpResourceListComponent, type McpResourceList } from './mcp-resources.schema.js';
import { JSON_UTF8 } from '../platform/http/json-content-type.js';

@ApiTags('mcp')
@Controller('api/mcp')
export class McpResourcesController {
  constructor(
    @Inject(MCP_RESOURCE_CATALOG) private readonly catalog: McpResourceCatalog,
    @Inject(MCP_LIVE_DOCUMENTS) private readonly live: LiveDocumentSources,
  ) {}

  @Get('resources')
  @ApiOperation({
    summary: 'List MCP documentation resources',
    description: 'Same registry as the MCP tool list_resources.',
  })
  @ApiPageQuery()
  @ApiOkResponse({ schema: mcpResourceListComponent })
  @ApiErrors('INVALID_QUERY_PARAMETER', 'MCP_LIST_FAILED')
  list(@Query() query: Record<string, unknown>): McpResourceList {
    const { offset, limit } = parseOffsetPageQuery(query);
    const page = this.catalog.page(offset, limit);
    const resources = page.resources.map(({ uri, name, type }) => ({ uri, name, type }));
    return page.nextCursor ? { resources, nextCursor: page.nextCursor } : { resources };
  }

  @Get('resource/:uri')
  @ApiOperation({
    summary: 'Read one MCP documentation resource',
    description:
      'The URI is used as-is (the colon needs no encoding), e.g. /api/mcp/resource/doc:discovery. Markdown or JSON per the resource type.',
  })
  @ApiParam({ name: 'uri', example: 'doc:discovery' })
  @ApiResponse({
    status: 200,
    description: 'The resource content: Markdown or JSON per the resource type.',
    content: {
      'text/markdown': { schema: { type: 'string' } },
      'application/json': { schema: { type: 'object' } },
    },
  })
  @ApiErrors('MCP_RESOURCE_NOT_FOUND', 'MCP_RESOURCE_FAILED')
  async read(@Param('uri') uri: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const content = await this.catalog.read(uri);
    if (content.type === MARKDOWN) {
      reply.header('content-type', 'text/markdown; charset=utf-8');
      return content.text;
    }
    if (content.jsonBytes) {
      reply.header('content-type', JSON_UTF8);
      return content.jsonBytes;
    }
    return content.json;
  }

  @Get('schema')
  @ApiOperation({
    summary: 'The OpenAPI document of this service',
    description: 'Same document as /openapi.json.',
  })
  @ApiOkResponse({ description: 'OpenAPI 3 document', schema: { type: 'object' } })
  @ApiErrors('OPENAPI_LOAD_FAILED')
  schema(@Res({ passthrough: true }) reply: FastifyReply): Buffer {
    const bytes = this.live.openApiJson();
    reply.header('content-type', JSON_UTF8);
    return bytes;
  }
}
