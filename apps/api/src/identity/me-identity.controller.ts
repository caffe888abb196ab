/**
 * `GET /api/me/identity` (JWT): the caller's own passport, read from the chain by the token id in
 * the JWT `sub` claim (spec: Own identity body).
 */
import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
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
import { ownIdentityComponent, type OwnIdentityResponse } from './me-identity.schema.js';

@ApiTags('identity')
@Controller('api/me')
export class MeIdentityController {
  constructor(@Inject(CHAIN_READER) private readonly chain: ChainReader) {}

  @Get('identity')
  @UseGuards(BearerAuthGuard)
  @ApiBearerAuth()
  @ApiOperation({ summary: "The caller's own passport: DN, face, expiry and metadata" })
  @ApiOkResponse({ schema: ownIdentityComponent })
  @ApiErrors(...BEARER_ERRORS, 'IDENTITY_SUB_MISSING', 'IDENTITY_NOT_FOUND', 'IDENTITY_LOOKUP_FAILED')
  async identity(@Caller() caller: AuthContext, @RequestId() requestId: string): Promise<OwnIdentityResponse> {
    const tokenId = tokenIdFromSubject(caller.claims.sub);
    if (!tokenId) throw new PassportError('IDENTITY_SUB_MISSING');
    const record = await lookupIdentityPassport(this.chain, tokenId);
    return { ...buildOwnIdentity(record), requestId } as OwnIdentityResponse;
  }
}
