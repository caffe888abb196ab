/**
 * `POST /api/signclient` (public; resolutions §4): checks the client's minting fee against the
 * server's and signs the metadata into the family with the family root key. 201 with the
 * `serviceprovider_signature`, the exact metadata signed and `fee_data`; 400 SIGNCLIENT_FEE_MISMATCH
 * (`details {message, clientFee, serverFee}` as strings) or SIGNCLIENT_INVALID_REQUEST; 500
 * SIGNCLIENT_FAILED when the family key is not configured or signing fails.
 */
import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiOperation,
  ApiProperty,
  ApiPropertyOptional,
  ApiTags,
} from '@nestjs/swagger';
import { computeMintFee, type Clock } from '@passport/core';
import { assertFeeMatches, signClient, validateSignClientRequest } from '@passport/core/signclient';
import { RequestId } from '../http/request-id.decorator.js';
import { CLOCK, SERVER_IDENTITY } from '../infrastructure/di-tokens.js';
import { type ServerIdentity } from '../infrastructure/server-identity.js';
import { ApiErrors } from '../openapi/api-errors.decorator.js';
import { obj } from '../openapi/schema-helpers.js';
import { FamilySignerSource } from './family-signer.source.js';

export class SignClientRequestDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description:
      'The passport metadata to sign (string values): token_id, not_after, not_before, max_requests, maxrq_window, ' +
      'openapijson_url, webhook_cidr, … serviceprovider_id is filled in with this server family when absent.',
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
    description: 'Fills tobesignedValues.token_id (must agree with it).',
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
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'Exactly the metadata that was signed: mint precisely this.',
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
  @ApiErrors('SIGNCLIENT_INVALID_REQUEST', 'SIGNCLIENT_FEE_MISMATCH', 'SIGNCLIENT_FAILED')
  async sign(@Body() body: unknown, @RequestId() requestId: string): Promise<SignClientResponseDto> {
    const serviceProviderId = this.server.serviceProviderId || undefined;
    // Validate (and check the fee) before touching the key, so bad requests are 400s even when it is missing.
    const request = validateSignClientRequest(body, serviceProviderId);
    const fee = computeMintFee(request.tobesignedValues, { tier: request.tier, nowMs: this.clock.nowMs() });
    assertFeeMatches(request.clientFee, fee.fee);
    const familySigner = await this.familySigner.get();
    const result = signClient(body, { familySigner, clock: this.clock, serviceProviderId });
    return { ...result, requestId } as SignClientResponseDto;
  }
}
