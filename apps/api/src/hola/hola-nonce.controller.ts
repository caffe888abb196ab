/**
 * `GET /api/holanonce16ts` (JWT): the timestamp and 16 random bytes an agent puts in its HOLA line
 * (spec: Nonce body). The nonce is not stored: replay protection records it when a line verifies.
 */
import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PassportError, type Clock } from '@passport/core';
import { isoTimestamp } from '../platform/http/iso-timestamp.js';
import { RequestId } from '../platform/http/request-id.decorator.js';
import { CLOCK } from '../platform/infrastructure/di-tokens.js';
import { newNonceHex } from '../platform/infrastructure/pooled-random.js';
import { ApiErrors } from '../platform/openapi/api-errors.decorator.js';
import { BearerAuthGuard } from '../session/bearer-auth.guard.js';
import { BEARER_ERRORS } from '../login/login.controller.js';
import { holaNonceComponent, type HolaNonce } from './hola-nonce.schema.js';

@ApiTags('hola')
@Controller('api')
export class HolaNonceController {
  constructor(@Inject(CLOCK) private readonly clock: Clock) {}

  @Get('holanonce16ts')
  @UseGuards(BearerAuthGuard)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Timestamp and 16-byte nonce for building a HOLA line (valid about 5 minutes)' })
  @ApiOkResponse({ schema: holaNonceComponent })
  @ApiErrors(...BEARER_ERRORS, 'AGENT_DISCOVERY_FAILED')
  nonce(@RequestId() requestId: string): HolaNonce {
    let noncetsHex: string;
    let timestamp: string;
    try {
      noncetsHex = newNonceHex();
      timestamp = isoTimestamp(this.clock.nowMs());
    } catch {
      throw new PassportError('AGENT_DISCOVERY_FAILED');
    }
    return { noncetsHex, timestamp, length: 16, algorithm: 'randomBytes(16)_hex', requestId };
  }
}
