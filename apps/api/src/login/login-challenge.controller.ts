/**
 * `GET /api/login/timestamp`: the stateless login challenge (docs/protocol.md §3). Both fields come from one
 * instant: `timestamp = floor(now)`, `timestamp_iso = new Date(timestamp * 1000).toISOString()`.
 */
import { Controller, Get, Inject, Optional } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type Clock, PassportError, systemClock } from '@passport/core';
import { CLOCK } from '../platform/infrastructure/di-tokens.js';
import { RequestId } from '../platform/http/request-id.decorator.js';
import { ApiErrors } from '../platform/openapi/api-errors.decorator.js';
import { loginChallengeComponent, type LoginChallenge } from './login-challenge.schema.js';

export function loginChallenge(nowMs: number): { timestamp: number; timestamp_iso: string } {
  const timestamp = Math.floor(nowMs / 1000);
  return { timestamp, timestamp_iso: new Date(timestamp * 1000).toISOString() };
}

@ApiTags('login')
@Controller('api/login')
export class LoginChallengeController {
  constructor(@Optional() @Inject(CLOCK) private readonly clock: Clock = systemClock) {}

  @Get('timestamp')
  @ApiOperation({ summary: 'Login challenge: a timestamp pair to sign once, valid about 5 minutes' })
  @ApiOkResponse({ schema: loginChallengeComponent })
  @ApiErrors('AGENT_AUTH_PARAMS_FAILED')
  timestamp(@RequestId() requestId: string): LoginChallenge {
    const now = this.clock.nowMs();
    if (!Number.isFinite(now)) throw new PassportError('AGENT_AUTH_PARAMS_FAILED');
    return { ...loginChallenge(now), requestId };
  }
}
