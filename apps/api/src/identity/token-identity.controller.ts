/**
 * Identity of any passport by token id: `GET /api/identity/token/{tokenId}/public` (public: the public
 * profile) and `GET /api/identity/token/{tokenId}/full` (JWT: DN, face, contact URIs, metadata and the
 * self-declared disclaimer). Token ids are 12 lowercase letters (400 INVALID_TOKEN_ID); unknown ones are
 * 404 IDENTITY_NOT_FOUND; a chain failure is 500 IDENTITY_LOOKUP_FAILED without upstream text.
 */
import { Controller, Get, Inject, Param, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiProperty, ApiTags } from '@nestjs/swagger';
import {
  buildPublicProfile,
  isTokenId,
  PassportError,
  type ChainReader,
  type PassportRecord,
} from '@passport/core';
import { buildFullIdentity } from '@passport/core/profile';
import { dnSchema, faceSchema, metadataSchema } from './identity.schemas.js';
import { BearerAuthGuard } from '../session/bearer-auth.guard.js';
import { BEARER_ERRORS } from '../login/login.controller.js';
import { RequestId } from '../platform/http/request-id.decorator.js';
import { CHAIN_READER } from '../platform/infrastructure/di-tokens.js';
import { ApiErrors } from '../platform/openapi/api-errors.decorator.js';
import { publicProfileProperties } from './public-profile.schema.js';
import { lookupIdentityPassport } from './passport-lookup.js';

export class PublicProfileDto {
  @ApiProperty(publicProfileProperties.tokenId as never) tokenId!: string;
  @ApiProperty(publicProfileProperties.did as never) did!: string;
  @ApiProperty(publicProfileProperties.ownerAccountId as never) ownerAccountId!: string | null;
  @ApiProperty(publicProfileProperties.displayName as never) displayName!: string | null;
  @ApiProperty(publicProfileProperties.creature as never) creature!: string | null;
  @ApiProperty(publicProfileProperties.contactUris as never) contactUris!: string[];
  @ApiProperty(publicProfileProperties.avatarUrl as never) avatarUrl!: string | null;
  @ApiProperty(publicProfileProperties.emojiUrl as never) emojiUrl!: string | null;
  @ApiProperty(publicProfileProperties.webhookUrl as never) webhookUrl!: string | null;
  @ApiProperty(faceSchema as never) face!: Record<string, unknown> | null;
  @ApiProperty() requestId!: string;
}

export class FullIdentityDto {
  @ApiProperty({ pattern: '^[a-z]{12}$' }) tokenId!: string;
  @ApiProperty(dnSchema as never) dn!: Record<string, unknown> | null;
  @ApiProperty(faceSchema as never) face!: Record<string, unknown> | null;
  @ApiProperty({
    type: 'array',
    items: { type: 'string' },
    description: 'Self-declared contact URIs from the DN.',
  } as never)
  contactUris!: string[];
  @ApiProperty({ ...metadataSchema, nullable: false } as never) metadata!: Record<string, string>;
  @ApiProperty({
    description: 'Creature, DN, contact URIs, webhook URL and other metadata are self-declared.',
  })
  disclaimer!: string;
  @ApiProperty() requestId!: string;
}

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
  @ApiOkResponse({ type: PublicProfileDto })
  @ApiErrors('INVALID_TOKEN_ID', 'IDENTITY_NOT_FOUND', 'IDENTITY_LOOKUP_FAILED')
  async publicProfile(
    @Param('tokenId') tokenId: string,
    @RequestId() requestId: string,
  ): Promise<PublicProfileDto> {
    const record = await this.passport(tokenId);
    return { ...buildPublicProfile(record), requestId } as PublicProfileDto;
  }

  @Get(':tokenId/full')
  @UseGuards(BearerAuthGuard)
  @ApiBearerAuth()
  @tokenIdParam
  @ApiOperation({
    summary: 'Full identity of a peer: DN, face, contact URIs, metadata (including webhook_url)',
  })
  @ApiOkResponse({ type: FullIdentityDto })
  @ApiErrors(...BEARER_ERRORS, 'INVALID_TOKEN_ID', 'IDENTITY_NOT_FOUND', 'IDENTITY_LOOKUP_FAILED')
  async full(@Param('tokenId') tokenId: string, @RequestId() requestId: string): Promise<FullIdentityDto> {
    const record = await this.passport(tokenId);
    return { ...buildFullIdentity(record), requestId } as FullIdentityDto;
  }

  private async passport(tokenId: string): Promise<PassportRecord> {
    if (!isTokenId(tokenId))
      throw new PassportError('INVALID_TOKEN_ID', { tokenId: String(tokenId).slice(0, 64) });
    return lookupIdentityPassport(this.chain, tokenId);
  }
}
