/**
 * `POST /api/signclient` (public, optional JWT): checks the client's minting fee against the
 * server's and signs the metadata into the family with the family root key, bound to the token id.
 * 201 with the `serviceprovider_signature`, the `token_id` it covers, the metadata to mint and
 * `fee_data`; 400 SIGNCLIENT_FEE_MISMATCH (`details {message, clientFee, serverFee}` as strings) or
 * SIGNCLIENT_INVALID_REQUEST; 403 PERMISSION_DENIED when a caller whose JWT is not privileged for
 * this route asks for `permissioned_routes` or an unlimited quota; 500 SIGNCLIENT_FAILED when the
 * family key is not configured or signing fails; 409 SIGNCLIENT_TOKEN_EXISTS for a token id minted
 * already, 503 when the chain cannot tell. A JWT that is sent must be valid (401 otherwise).
 */
import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { computeMintFee, isPassportError, PassportError, type Clock } from '@passport/core';
import { type ChainReader } from '@passport/core/ports';
import {
  assertFeeMatches,
  assertTokenIdUnminted,
  signClient,
  validateSignClientRequest,
} from '@passport/core/signclient';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { BearerAuthenticator } from '../session/bearer.authenticator.js';
import { PrivilegeGrants } from '../session/privilege-grant.js';
import { TokenRenewer } from '../session/token-renewer.js';
import { RequestId } from '../platform/http/request-id.decorator.js';
import { CHAIN_READER, CLOCK, SERVER_IDENTITY } from '../platform/infrastructure/di-tokens.js';
import { type ServerIdentity } from '../platform/infrastructure/server-identity.js';
import { ApiErrors } from '../platform/openapi/api-errors.decorator.js';
import {
  signClientRequestComponent,
  signClientResponseComponent,
  type SignClientResponse,
} from './signclient.schema.js';
import { FamilySignerSource } from './family-signer.source.js';

@ApiTags('minting')
@Controller('api')
export class SignClientController {
  constructor(
    private readonly familySigner: FamilySignerSource,
    private readonly authenticator: BearerAuthenticator,
    private readonly renewer: TokenRenewer,
    private readonly grants: PrivilegeGrants,
    @Inject(SERVER_IDENTITY) private readonly server: ServerIdentity,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CHAIN_READER) private readonly chain: ChainReader,
  ) {}

  @Post('signclient')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Sign new passport metadata into the family after checking the minting fee',
    description:
      'Fees: collectible 496; enterprise 1806 × ceil(days until not_after) / 365; personal ' +
      'max(0.28 × (max_requests/100) × (3600/maxrq_window) × ceil(days)/365, 0.018). Public; an optional ' +
      'bearer token must be valid, and only a JWT privileged for this route may sign permissioned_routes.',
    security: [{}, { bearer: [] }],
  })
  @ApiBody({ schema: signClientRequestComponent })
  @ApiCreatedResponse({ schema: signClientResponseComponent })
  @ApiErrors(
    'SIGNCLIENT_INVALID_REQUEST',
    'SIGNCLIENT_FEE_MISMATCH',
    'SIGNCLIENT_TOKEN_EXISTS',
    'INVALIDATED_TOKEN',
    'PERMISSION_DENIED',
    'SIGNCLIENT_FAILED',
    'SERVICE_UNAVAILABLE',
  )
  async sign(
    @Body() body: unknown,
    @Req() http: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @RequestId() requestId: string,
  ): Promise<SignClientResponse> {
    const serviceProviderId = this.server.serviceProviderId || undefined;
    // Anonymous callers are welcome, but only a JWT privileged for this very route may sign privileges.
    const auth = await this.authenticator.authenticateOptional(http.headers.authorization);
    if (auth !== null) await this.renewer.renewOnto(auth, reply);
    // The claim and the passport as the chain holds it now, as the privileged tier judges.
    const caller = { privileged: auth !== null && (await this.grants.granted(auth, '/api/signclient')) };
    // Validate (and check the fee) before touching the key, so bad requests are 400s even when it is missing.
    const request = validateSignClientRequest(body, serviceProviderId, caller);
    const fee = computeMintFee(request.tobesignedValues, { tier: request.tier, nowMs: this.clock.nowMs() });
    assertFeeMatches(request.clientFee, fee.fee);
    await assertTokenIdUnminted(this.chain, request.tokenId).catch((error: unknown) => {
      if (isPassportError(error)) throw error;
      // Unread, the token id may be minted: sign nothing (the client retries).
      throw new PassportError('SERVICE_UNAVAILABLE', { reason: 'chain_unavailable' }, undefined, {
        cause: error,
      });
    });
    const familySigner = await this.familySigner.get();
    const result = signClient(body, { familySigner, clock: this.clock, serviceProviderId, caller });
    // A signature no root of this family vouches for now (the root revoked or gone on chain, its key
    // rotated) is one every server of the family refuses: not handed out for a fee.
    const vouched = await this.grants.vouched({
      tokenId: result.token_id,
      metadata: { ...result.metadata, serviceprovider_signature: result.serviceprovider_signature },
    });
    if (!vouched) throw new PassportError('SERVICE_UNAVAILABLE', { reason: 'family_root_not_usable' });
    return { ...result, requestId } as SignClientResponse;
  }
}
