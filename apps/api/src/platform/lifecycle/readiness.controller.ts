/**
 * `GET /health/ready`: 200 while this instance takes new traffic, 503 `SERVICE_UNAVAILABLE` (with
 * `details.state`: `starting`, `draining`, or `misconfigured` with `details.problem` for a problem no
 * retry fixes, such as a Redis database index the server refuses, a SQLite file or WAL deleted under
 * the process, or this instance's clock behind Redis's beyond the margin, recording nothing, while more
 * instances agree with Redis's clock than with its own) otherwise, for a balancer or an
 * orchestrator's readiness probe. It checks no dependency's health: a slow chain should not take every
 * instance out of rotation at once (`GET /health` reports dependencies).
 */
import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PassportError } from '@passport/core';
import { isoTimestamp } from '../http/iso-timestamp.js';
import { RequestId } from '../http/request-id.decorator.js';
import { ApiErrors } from '../openapi/api-errors.decorator.js';
import { Readiness } from './readiness.js';
import { readyComponent, type Ready } from './readiness.schema.js';

@ApiTags('service')
@Controller('health')
export class ReadinessController {
  constructor(private readonly readiness: Readiness) {}

  @Get('ready')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Readiness of this instance for new traffic',
    description:
      '503 SERVICE_UNAVAILABLE with details.state "starting", "draining" (after SIGTERM: in-flight requests ' +
      'are finishing and the instance is about to stop accepting connections) or "misconfigured" (with ' +
      'details.problem: a problem no retry fixes, such as a Redis database index the server refuses, or a ' +
      "SQLite database file or WAL deleted under the running process, or, on Redis, this instance's clock " +
      "behind Redis's beyond the 15 min margin, recording nothing, while more instances agree with Redis's " +
      'clock than with its own).',
  })
  @ApiOkResponse({ schema: readyComponent })
  @ApiErrors('SERVICE_UNAVAILABLE')
  ready(@RequestId() requestId: string): Ready {
    const state = this.readiness.state;
    if (state !== 'ready') throw new PassportError('SERVICE_UNAVAILABLE', { state });
    const problem = this.readiness.fatalProblem;
    if (problem !== undefined)
      throw new PassportError('SERVICE_UNAVAILABLE', { state: 'misconfigured', problem });
    return { status: 'ready', requestId, timestamp: isoTimestamp() };
  }
}
