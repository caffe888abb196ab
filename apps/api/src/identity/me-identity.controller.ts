/**
 * `GET /api/me/identity` (JWT): the caller's own passport, read from the chain by the token id in
 * the JWT `sub` claim (spec: Own identity body).
 */
import { Controller, Get, Inject, Res, UseGuards } from '@nestjs/common';
import { type FastifyReply } from 'fastify';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PassportError, type ChainReader, type PassportRecord } from '@passport/core';
import { buildOwnIdentity } from '@passport/core/profile';
import { tokenIdFromSubject } from '@passport/core/login';
import { RequestId } from '../platform/http/request-id.decorator.js';
import { CHAIN_READER } from '../platform/infrastructure/di-tokens.js';
import { lookupIdentityPassport } from './passport-lookup.js';
import { ApiErrors } from '../platform/openapi/api-errors.decorator.js';
import { Caller, type AuthContext } from '../session/auth-context.js';
import { BearerAuthGuard } from '../session/bearer-auth.guard.js';
import { BEARER_ERRORS } from '../login/login.controller.js';
import { ownIdentityComponent } from './me-identity.schema.js';
import { JSON_UTF8 } from '../platform/http/json-content-type.js';

@ApiTags('identity')
@Controller('api/me')
export class MeIdentityController {
  /**
   * The identity body of a passport record up to its `requestId`, built and serialised once per record
   * (the chain cache hands out the same record for at most 5 s, and a record is never changed in
   * place): decoding the face and DN and stringifying the body were most of the route's own cost.
   */
  private readonly bodyHeads = new WeakMap<PassportRecord, string>();

  constructor(@Inject(CHAIN_READER) private readonly chain: ChainReader) {}

  @Get('identity')
  @UseGuards(BearerAuthGuard)
  @ApiBearerAuth()
  @ApiOperation({ summary: "The caller's own passport: DN, face, expiry and metadata" })
  @ApiOkResponse({ schema: ownIdentityComponent })
  @ApiErrors(...BEARER_ERRORS, 'IDENTITY_SUB_MISSING', 'IDENTITY_NOT_FOUND', 'IDENTITY_LOOKUP_FAILED')
  async identity(
    @Caller() caller: AuthContext,
    @RequestId() requestId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const tokenId = tokenIdFromSubject(caller.claims.sub);
    if (!tokenId) throw new PassportError('IDENTITY_SUB_MISSING');
    const record = await lookupIdentityPassport(this.chain, tokenId);
    let head = this.bodyHeads.get(record);
    if (head === undefined) {
      const identity = buildOwnIdentity(record);
      head = JSON.stringify(identity).slice(0, -1); // without the closing brace (the body always has tokenId)
      this.bodyHeads.set(record, head);
    }
    // The same bytes JSON.stringify gives for `{ ...buildOwnIdentity(record), requestId }`.
    void reply.type(JSON_UTF8);
    return `${head},"requestId":${JSON.stringify(requestId)}}`;
  }
}
