/**
 * `GET /api/metrics` (privileged): request, session, chain and verify figures as JSON, or the same
 * figures in Prometheus text when the client asks for `text/plain` (docs/protocol.md §4). The body depends
 * on `Accept` (`Vary: Accept`) and is never stored by a cache (`Cache-Control: no-store`).
 */
import { Controller, Get, Header, Headers, Inject, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type FastifyReply } from 'fastify';
import { type Clock } from '@passport/core';
import { RequestId } from '../platform/http/request-id.decorator.js';
import { CLOCK } from '../platform/infrastructure/di-tokens.js';
import { MetricsSnapshotService } from './metrics-snapshot.service.js';
import { metricsComponent, type Metrics } from './metrics.schema.js';
import { ApiErrors } from '../platform/openapi/api-errors.decorator.js';
import { BearerAuthGuard } from '../session/bearer-auth.guard.js';
import { PrivilegedGuard } from '../session/privileged.guard.js';
import { PRIVILEGED_ERRORS } from './sessions-admin.controller.js';
import Negotiator from 'negotiator';
import vary from 'vary';

/** True when the Accept header prefers Prometheus text (text/plain) to JSON. */
export function wantsPrometheus(accept: string | undefined): boolean {
  if (!accept) return false;
  // By the Accept header's q-values (negotiator): `text/plain;q=0` must not get the text form, nor
  // `application/json;q=0.1, text/plain` the JSON one. Media-type parameters other than q are left
  // out first (a scraper's `text/plain;version=0.0.4` is the text form). On a tie the range named first
  // wins; JSON is the form when neither is named.
  const ranges = accept
    .split(',')
    .map((range) =>
      range
        .split(';')
        .filter((part, i) => i === 0 || /^\s*q\s*=/i.test(part))
        .join(';'),
    )
    .join(',');
  return (
    new Negotiator({ headers: { accept: ranges } }).mediaType(['application/json', 'text/plain']) ===
    'text/plain'
  );
}

@ApiTags('admin')
@Controller('api/metrics')
export class MetricsController {
  constructor(
    private readonly snapshots: MetricsSnapshotService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get()
  @Header('Cache-Control', 'no-store')
  @UseGuards(BearerAuthGuard, PrivilegedGuard)
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Service metrics (privileged); Prometheus text with Accept: text/plain',
    description:
      "The text form is the operators' registry: request-duration histograms per route, method and status, " +
      'counters (verify outcomes, logins, chain reads and cache hits, store errors) and the process metrics.',
  })
  @ApiOkResponse({
    content: {
      'application/json': { schema: metricsComponent },
      'text/plain': { schema: { type: 'string', description: 'Prometheus text exposition format 0.0.4' } },
    },
  })
  @ApiErrors(...PRIVILEGED_ERRORS, 'METRICS_FAILED')
  async metrics(
    @Headers('accept') accept: string | undefined,
    @RequestId() requestId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Metrics | string> {
    // Added to what is there (CORS names Origin in it), once.
    const present = reply.getHeader('vary');
    const existing = Array.isArray(present) ? present.join(', ') : typeof present === 'string' ? present : '';
    reply.header('Vary', vary.append(existing, 'Accept'));
    if (wantsPrometheus(accept)) {
      const text = await this.snapshots.prometheusText();
      reply.header('Content-Type', this.snapshots.contentType);
      return text;
    }
    const now = this.clock.nowMs();
    return { ...(await this.snapshots.snapshot(now)), requestId, timestamp: new Date(now).toISOString() };
  }
}
