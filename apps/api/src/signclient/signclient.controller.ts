/**
 * `POST /api/signclient` (public, optional JWT): checks the client's minting fee against the
 * server's and signs the metadata into the family with the family root key, bound to the token id.
 * 201 with the `serviceprovider_signature`, the `token_id` it covers, the metadata to mint and
 * `fee_data`; 400 SIGNCLIENT_FEE_MISMATCH (`details {message, clientFee, serverFee}` as strings) or
 * SIGNCLIENT_INVALID_REQUEST; 403 PERMISSION_DENIED when a caller whose JWT is not privileged for
 * this route asks for `permissioned_routes` or an unlimited quota; 500 SIGNCLIENT_FAILED when the
 * family key is not configured or signing fails. A JWT that is sent must be valid (401 otherwise).
 */
import { Body, Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiOperation,
  ApiProperty,
  ApiPropertyOptional,
  ApiTags,
} from '@nestjs/swagger';
import { computeMintFee, type Clock } from '@passport/core';
import { assertFeeMatches, signClient, validateSignClientRequest } from '@passport/core/signclient';
import { isRouteAllowed } from '@passport/core/login';
import { type FastifyRequest } from 'fastify';
import { BearerAuthenticator } from '../session/bearer.authenticator.js';
import { RequestId } from '../platform/http/request-id.decorator.js';
import { CLOCK, SERVER_IDENTITY } from '../platform/infrastructure/di-tokens.js';
import { type ServerIdentity } from '../platform/infrastructure/server-identity.js';
import { ApiErrors } from '../platform/openapi/api-errors.decorator.js';
import { obj } from '../platform/openapi/schema-helpers.js';
import { FamilySignerSource } from './family-signer.source.js';

export class SignClientRequestDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description:
      'The passport metadata to sign (string values): not_after, not_before, max_requests, maxrq_window, ' +
      'openapijson_url, webhook_cidr, … serviceprovider_id is filled in with this server family when absent. ' +
      'A token_id here is taken as the token id to sign and left out of the metadata to mint. Without a JWT ' +
      'privileged for /api/signclient, permissioned_routes is refused and max_requests must be a positive integer.',
  } as never)
  tobesignedValues!: Record<string, string>;

  @ApiProperty({
    oneOf: [
      { type: 'number', minimum: 0 },
      { type: 'string', pattern: '^\\d{1,15}(\\.\\d{1,18})?$' },
    ],
    description:
      'The fee the client computed; more than 1e-6 away from the server fee is SIGNCLIENT_FEE_MISMATCH.',
  } as never)
  mintingfee!: number | string;

  @ApiPropertyOptional({
    pattern: '^[a-z]{12}$',
    description:
      'The token id the passport will be minted under (or tobesignedValues.token_id; equal when both are sent). ' +
      'Required: the family signature covers it, as the issuer signs.',
  })
  token_id?: string;

  @ApiPropertyOptional({
    enum: ['personal', 'enterprise', 'collectible'],
    description:
      'Explicit tier. Otherwise collectible when not_after is "0", enterprise when max_requests is "4999", else personal.',
  })
  tier?: string;
}

export class SignClientResponseDto {
  @ApiProperty({
    description: "base64url Ed25519 signature of the family root over the metadata's canonical digest.",
  })
  serviceprovider_signature!: string;

  @ApiProperty({
    pattern: '^[a-z]{12}$',
    description: 'The token id the signature covers: mint under exactly this id.',
  })
  token_id!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description:
      'Exactly the metadata to mint (no token_id: the signature covers the token id of the record).',
  } as never)
  metadata!: Record<string, string>;

  @ApiProperty(
    obj({
      tier: { type: 'string', enum: ['personal', 'enterprise', 'collectible'] },
      fee: { type: 'number' },
      clientFee: { type: 'number' },
      daysUntilExpiry: { type: 'integer', nullable: true, description: 'null for collectibles.' },
    }) as never,
  )
  fee_data!: Record<string, unknown>;

  @ApiProperty()
  requestId!: string;
}

@ApiTags('minting')
@Controller('api')
export class SignClientController {
  constructor(
    private readonly familySigner: FamilySignerSource,
    private readonly authenticator: BearerAuthenticator,
    @Inject(SERVER_IDENTITY) private readonly server: ServerIdentity,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Post('signclient')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Sign new passport metadata into the family after checking the minting fee',
    description:
      'Fees: collectible 496; enterprise 1806 × ceil(days until not_after) / 365; personal ' +
      'max(0.28 × (max_requests/100) × (3600/maxrq_window) × ceil(days)/365, 0.018).',
  })
  @ApiBody({ type: SignClientRequestDto })
  @ApiCreatedResponse({ type: SignClientResponseDto })
  @ApiBearerAuth()
  @ApiErrors(
    'SIGNCLIENT_INVALID_REQUEST',
    'SIGNCLIENT_FEE_MISMATCH',
    'INVALIDATED_TOKEN',
    'PERMISSION_DENIED',
    'SIGNCLIENT_FAILED',
    'SERVICE_UNAVAILABLE',
  )
  async sign(
    @Body() body: unknown,
    @Req() http: FastifyRequest,
    @RequestId() requestId: string,
  ): Promise<SignClientResponseDto> {
    const serviceProviderId = this.server.serviceProviderId || undefined;
    // Anonymous callers are welcome, but only a JWT privileged for this very route may sign privileges.
    const auth = await this.authenticator.authenticateOptional(http.headers.authorization);
    const routes = auth?.claims.passport_permissionedroutes;
    const caller = {
      privileged:
        auth !== null && isRouteAllowed(typeof routes === 'string' ? routes : null, '/api/signclient'),
    };
    // Validate (and check the fee) before touching the key, so bad requests are 400s even when it is missing.
    const request = validateSignClientRequest(body, serviceProviderId, caller);
    const fee = computeMintFee(request.tobesignedValues, { tier: request.tier, nowMs: this.clock.nowMs() });
    assertFeeMatches(request.clientFee, fee.fee);
    const familySigner = await this.familySigner.get();
    const result = signClient(body, { familySigner, clock: this.clock, serviceProviderId, caller });
    return { ...result, requestId } as SignClientResponseDto;
  }
}
