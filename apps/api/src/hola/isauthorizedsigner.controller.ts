/**
 * `POST /api/isauthorizedsigner` (JWT; docs/protocol.md §4, §6): did the current owner of `tokenId` sign
 * this delegated key? Used after a subagent HOLA line verifies with the key embedded in it. Stateless:
 * the core's `checkDelegation` reads the passport and the owner's keys from the chain each time.
 */
import { Body, Controller, HttpCode, Inject, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  checkDelegation,
  isPassportError,
  PassportError,
  type ChainReader,
  type SignatureVerifier,
} from '@passport/core';
import { validateDelegationRequest } from '@passport/core/delegation';
import { BearerAuthGuard } from '../session/bearer-auth.guard.js';
import { BEARER_ERRORS } from '../login/login.controller.js';
import { RequestId } from '../platform/http/request-id.decorator.js';
import { CHAIN_READER, SIGNATURE_VERIFIER } from '../platform/infrastructure/di-tokens.js';
import { ApiErrors } from '../platform/openapi/api-errors.decorator.js';
import {
  isAuthorizedSignerRequestComponent,
  isAuthorizedSignerResponseComponent,
  type IsAuthorizedSignerResponse,
} from './isauthorizedsigner.schema.js';

@ApiTags('hola')
@Controller('api')
export class IsAuthorizedSignerController {
  constructor(
    @Inject(CHAIN_READER) private readonly chain: ChainReader,
    @Inject(SIGNATURE_VERIFIER) private readonly verifier: SignatureVerifier,
  ) {}

  @Post('isauthorizedsigner')
  @HttpCode(200)
  @UseGuards(BearerAuthGuard)
  @ApiBearerAuth()
  @ApiOperation({
    summary: "Check a delegated (subagent) signer: did the passport's current owner sign this key?",
    description:
      'Call after a subagent HOLA line verifies (it verifies with the key embedded in it). Compare the key, ' +
      'issuer and delegate id of the line with this request; the client library does both in one call ' +
      '(verifySubagent). Transferring the passport revokes the delegations its old owner signed.',
  })
  @ApiBody({ schema: isAuthorizedSignerRequestComponent })
  @ApiOkResponse({ schema: isAuthorizedSignerResponseComponent })
  @ApiErrors(...BEARER_ERRORS, 'ISAUTHORIZEDSIGNER_*', 'TOKEN_NOT_FOUND', 'VERIFY_FAILED')
  async check(@Body() body: unknown, @RequestId() requestId: string): Promise<IsAuthorizedSignerResponse> {
    const request = validateDelegationRequest(body);
    try {
      const result = await checkDelegation({ chain: this.chain, verifier: this.verifier }, request);
      return { ...result, requestId };
    } catch (error) {
      if (isPassportError(error)) throw error;
      // The upstream text goes to the log only.
      throw new PassportError('VERIFY_FAILED', { reason: 'chain_unavailable' }, undefined, { cause: error });
    }
  }
}
