/**
 * `GET /api/me/identity` (JWT): the caller's own passport, read from the chain by the token id in
 * the JWT `sub` claim (spec: Own identity body).
 */
import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { PassportError, type ChainReader } from '@passport/core';
import { buildOwnIdentity } from '@passport/core/profile';
import { tokenIdFromSubject } from '@passport/core/login';
import { RequestId } from '../platform/http/request-id.decorator.js';
import { CHAIN_READER } from '../platform/infrastructure/di-tokens.js';
import { lookupIdentityPassport } from './passport-lookup.js';
import { ApiErrors } from '../platform/openapi/api-errors.decorator.js';
import { Caller, type AuthContext } from '../session/auth-context.js';
import { BearerAuthGuard } from '../session/bearer-auth.guard.js';
import { BEARER_ERRORS } from '../login/login.controller.js';
import { dnSchema, faceSchema, metadataSchema } from './identity.schemas.js';

export class OwnIdentityDto {
  @ApiProperty({ pattern: '^[a-z]{12}$' })
  tokenId!: string;

  @ApiProperty(dnSchema as never)
  dn!: Record<string, unknown> | null;

  @ApiProperty(faceSchema as never)
  face!: Record<string, unknown> | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'null when the passport does not expire.' })
  notAfter!: string | null;

  @ApiProperty(metadataSchema as never)
  metadata!: Record<string, string> | null;

  @ApiProperty()
  requestId!: string;
}

@ApiTags('identity')
@Controller('api/me')
export class MeIdentityController {
  constructor(@Inject(CHAIN_READER) private readonly chain: ChainReader) {}

  @Get('identity')
  @UseGuards(BearerAuthGuard)
  @ApiBearerAuth()
  @ApiOperation({ summary: "The caller's own passport: DN, face, expiry and metadata" })
  @ApiOkResponse({ type: OwnIdentityDto })
  @ApiErrors(...BEARER_ERRORS, 'IDENTITY_SUB_MISSING', 'IDENTITY_NOT_FOUND', 'IDENTITY_LOOKUP_FAILED')
  async identity(@Caller() caller: AuthContext, @RequestId() requestId: string): Promise<OwnIdentityDto> {
    const tokenId = tokenIdFromSubject(caller.claims.sub);
    if (!tokenId) throw new PassportError('IDENTITY_SUB_MISSING');
    const record = await lookupIdentityPassport(this.chain, tokenId);
    return { ...buildOwnIdentity(record), requestId } as OwnIdentityDto;
  }
}
