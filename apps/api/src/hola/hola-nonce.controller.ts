/**
 * `GET /api/holanonce16ts` (JWT): the timestamp and 16 random bytes an agent puts in its HOLA line
 * (spec: Nonce body). The nonce is not stored: replay protection records it when a line verifies.
 */
import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { PassportError, type Clock } from '@passport/core';
import { RequestId } from '../platform/http/request-id.decorator.js';
import { CLOCK } from '../platform/infrastructure/di-tokens.js';
import { newNonceHex } from '../platform/infrastructure/pooled-random.js';
import { ApiErrors } from '../platform/openapi/api-errors.decorator.js';
import { BearerAuthGuard } from '../session/bearer-auth.guard.js';
import { BEARER_ERRORS } from '../login/login.controller.js';

export class HolaNonceDto {
  @ApiProperty({ pattern: '^[0-9A-F]{32}$', description: '16 random bytes as 32 uppercase hex; used verbatim in the HOLA line.' })
  noncetsHex!: string;

  @ApiProperty({ format: 'date-time', description: 'ISO 8601 UTC; used verbatim in the HOLA line.' })
  timestamp!: string;

  @ApiProperty({ type: 'integer', enum: [16] })
  length!: number;

  @ApiProperty({ enum: ['randomBytes(16)_hex'] })
  algorithm!: string;

  @ApiProperty()
  requestId!: string;
}

@ApiTags('hola')
@Controller('api')
export class HolaNonceController {
  constructor(@Inject(CLOCK) private readonly clock: Clock) {}

  @Get('holanonce16ts')
  @UseGuards(BearerAuthGuard)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Timestamp and 16-byte nonce for building a HOLA line (valid about 5 minutes)' })
  @ApiOkResponse({ type: HolaNonceDto })
  @ApiErrors(...BEARER_ERRORS, 'AGENT_DISCOVERY_FAILED')
  nonce(@RequestId() requestId: string): HolaNonceDto {
    let noncetsHex: string;
    let timestamp: string;
    try {
      noncetsHex = newNonceHex();
      timestamp = new Date(this.clock.nowMs()).toISOString();
    } catch {
      throw new PassportError('AGENT_DISCOVERY_FAILED');
    }
    return { noncetsHex, timestamp, length: 16, algorithm: 'randomBytes(16)_hex', requestId };
  }
}
