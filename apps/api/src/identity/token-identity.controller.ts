/**
 * Identity of any passport by token id: `GET /api/identity/token/{tokenId}/public` (public: the public
 * profile) and `GET /api/identity/token/{tokenId}/full` (JWT: DN, face, contact URIs, metadata and the
 * self-declared disclaimer). Token ids are 12 lowercase letters (400 INVALID_TOKEN_ID); unknown ones are
 * 404 IDENTITY_NOT_FOUND; a chain failure is 500 IDENTITY_LOOKUP_FAILED without upstream text.
 */
import { Controller, Get, Inject, Param, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import {
  buildPublicProfile,
  isTokenId,
  PassportError,
  type ChainReader,
  type PassportRecord,
} from '@passport/core';
import { printableText } from '@passport/core/codecs';
import { buildFullIdentity } from '@passport/core/profile';
import { BearerAuthGuard } from '../session/bearer-auth.guard.js';
import { BEARER_ERRORS } from '../login/login.controller.js';
import { RequestId } from '../platform/http/request-id.decorator.js';
import { CHAIN_READER } from '../platform/infrastructure/di-tokens.js';
import { ApiErrors } from '../platform/openapi/api-errors.decorator.js';
import { lookupIdentityPassport } from './passport-lookup.js';
import {
  fullIdentityComponent,
  publicProfileComponent,
  type FullIdentityResponse,
  type PublicProfileResponse,
} from './token-identity.schema.js';

const tokenIdParam = ApiParam({
  name: 'tokenId',
  description: '12 lowercase letters (the facial token id).',
  schema: { type: 'string', pattern: '^[a-z]{12}$' },
  example: 'bjbvcjzqbdsj',
});

@ApiTags('identity')
@Controller('api/identity/token')
export class TokenIdentityController {
  constructor(@Inject(CHAIN_READER) private readonly chain: ChainReader) {}

  @Get(':tokenId/public')
  @tokenIdParam
  @ApiOperation({
    summary: 'Public profile of a passport (everything but tokenId, did, owner and face is self-declared)',
  })
  @ApiOkResponse({ schema: publicProfileComponent })
  @ApiErrors('INVALID_TOKEN_ID', 'IDENTITY_NOT_FOUND', 'IDENTITY_LOOKUP_FAILED')
  async publicProfile(
    @Param('tokenId') tokenId: string,
    @RequestId() requestId: string,
  ): Promise<PublicProfileResponse> {
    const record = await this.passport(tokenId);
    return { ...buildPublicProfile(record), requestId } as PublicProfileResponse;
  }

  @Get(':tokenId/full')
  @UseGuards(BearerAuthGuard)
  @ApiBearerAuth()
  @tokenIdParam
  @ApiOperation({
    summary: 'Full identity of a peer: DN, face, contact URIs, metadata (including webhook_url)',
  })
  @ApiOkResponse({ schema: fullIdentityComponent })
  @ApiErrors(...BEARER_ERRORS, 'INVALID_TOKEN_ID', 'IDENTITY_NOT_FOUND', 'IDENTITY_LOOKUP_FAILED')
  async full(
    @Param('tokenId') tokenId: string,
    @RequestId() requestId: string,
  ): Promise<FullIdentityResponse> {
    const record = await this.passport(tokenId);
    return { ...buildFullIdentity(record), requestId } as FullIdentityResponse;
  }

  private async passport(tokenId: string): Promise<PassportRecord> {
    if (!isTokenId(tokenId))
      throw new PassportError('INVALID_TOKEN_ID', { tokenId: printableText(String(tokenId), 64) });
    return lookupIdentityPassport(this.chain, tokenId);
  }
}
