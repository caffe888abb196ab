/**
 * `GET /api/agents` (public): passport holders with their decoded face and self-declared creature,
 * paged with an offset cursor (docs/protocol.md §4: `cursor` is the decimal offset as a string; `limit`
 * 1..100, default 20; anything else 400 INVALID_QUERY_PARAMETER). Other query parameters (for example
 * `owner`) are ignored. A chain failure is 500 AGENTS_RETRIEVE_FAILED.
 */
import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PassportError, type ChainReader } from '@passport/core';
import { listAgentsPage, parseAgentsQuery } from '@passport/core/profile';
import { RequestId } from '../platform/http/request-id.decorator.js';
import { CHAIN_READER } from '../platform/infrastructure/di-tokens.js';
import { ApiErrors } from '../platform/openapi/api-errors.decorator.js';
import { ApiPageQuery } from '../platform/openapi/api-page-query.decorator.js';
import { agentsPageComponent, type AgentsPage } from './agents.schema.js';

@ApiTags('identity')
@Controller('api')
export class AgentsController {
  constructor(@Inject(CHAIN_READER) private readonly chain: ChainReader) {}

  @Get('agents')
  @ApiOperation({
    summary: 'List passport holders with their decoded face (offset cursor)',
    description:
      'Every page but the last holds `limit` agents; `nextCursor` is the chain offset of the next one (family-root ' +
      'records are not agents and are read past). ' +
      'Other query parameters are ignored.',
  })
  @ApiPageQuery()
  @ApiOkResponse({ schema: agentsPageComponent })
  @ApiErrors('INVALID_QUERY_PARAMETER', 'AGENTS_RETRIEVE_FAILED')
  async list(
    @Query('limit') limit: unknown,
    @Query('cursor') cursor: unknown,
    @RequestId() requestId: string,
  ): Promise<AgentsPage> {
    const query = parseAgentsQuery({ limit, cursor });
    let page;
    try {
      page = await listAgentsPage((request) => this.chain.listPassports(request), query);
    } catch (error) {
      throw new PassportError('AGENTS_RETRIEVE_FAILED', null, undefined, { cause: error });
    }
    return { agents: page.agents, nextCursor: page.nextCursor, requestId, disclaimer: page.disclaimer };
  }
}
