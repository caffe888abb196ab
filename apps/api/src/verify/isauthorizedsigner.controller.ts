/**
 * `POST /api/isauthorizedsigner` (JWT; resolutions §4, §6): did the current owner of `tokenId` sign
 * this delegated key? Used after a subagent HOLA line verifies with the key embedded in it. Stateless:
 * the core's `checkDelegation` reads the passport and the owner's keys from the chain each time.
 */
import { Body, Controller, HttpCode, Inject, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import {
  checkDelegation,
  isPassportError,
  PassportError,
  type ChainReader,
  type SignatureVerifier,
} from '@passport/core';
import { validateDelegationRequest } from '@passport/core/delegation';
import { BearerAuthGuard } from '../auth/bearer/bearer-auth.guard.js';
import { BEARER_ERRORS } from '../auth/login/login.controller.js';
import { RequestId } from '../http/request-id.decorator.js';
import { CHAIN_READER, SIGNATURE_VERIFIER } from '../infrastructure/di-tokens.js';
import { ApiErrors } from '../openapi/api-errors.decorator.js';
import { obj } from '../openapi/schema-helpers.js';

export class IsAuthorizedSignerRequestDto {
  @ApiProperty({ pattern: '^[a-z]{12}$', description: 'The issuing passport.' })
  tokenId!: string;

  @ApiProperty({
    minLength: 1,
    maxLength: 128,
    description: 'The delegate id (as in the subagent HOLA line).',
  })
  base64HashOrDelegateSignerId!: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'When the owner signed (Unix seconds).' })
  unixTimestamp!: number;

  @ApiProperty({ description: 'The delegated 32-byte Ed25519 key, base64url or base64, exactly as signed.' })
  publicKey!: string;

  @ApiProperty({
    description:
      "The owner's 64-byte Ed25519 signature (base64url or base64) over UTF-8 `tokenId:delegateId:unixTimestamp:publicKey`.",
  })
  signature!: string;
}

export class IsAuthorizedSignerResponseDto {
  @ApiProperty({ description: 'True when the passport is active and its current owner signed this key.' })
  authorized!: boolean;

  @ApiProperty({ pattern: '^[a-z]{12}$' })
  tokenId!: string;

  @ApiProperty()
  base64HashOrDelegateSignerId!: string;

  @ApiProperty(
    obj({
      tokenExists: { type: 'boolean' },
      tokenActive: { type: 'boolean' },
      publicKeyAuthorized: { type: 'boolean' },
    }) as never,
  )
  checks!: Record<string, boolean>;

  @ApiProperty({
    type: 'array',
    items: {
      type: 'string',
      enum: ['token_revoked', 'token_not_live', 'owner_keys_unavailable', 'signature_invalid'],
    },
  } as never)
  failureReasons!: string[];

  @ApiProperty()
  requestId!: string;
}

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
  @ApiBody({ type: IsAuthorizedSignerRequestDto })
  @ApiOkResponse({ type: IsAuthorizedSignerResponseDto })
  @ApiErrors(...BEARER_ERRORS, 'ISAUTHORIZEDSIGNER_*', 'TOKEN_NOT_FOUND', 'VERIFY_FAILED')
  async check(@Body() body: unknown, @RequestId() requestId: string): Promise<IsAuthorizedSignerResponseDto> {
    const request = validateDelegationRequest(body);
    try {
      const result = await checkDelegation({ chain: this.chain, verifier: this.verifier }, request);
      return { ...result, requestId } as IsAuthorizedSignerResponseDto;
    } catch (error) {
      if (isPassportError(error)) throw error;
      throw new PassportError('VERIFY_FAILED', { reason: 'chain_unavailable' }); // never the upstream text
    }
  }
}
