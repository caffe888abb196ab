/**
 * `GET /api/metrics` (privileged): request, session, chain and verify figures as JSON, or the same
 * figures in Prometheus text when the client asks for `text/plain` (resolutions §4).
 */
import { Controller, Get, Headers, Inject, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProduces, ApiProperty, ApiTags } from '@nestjs/swagger';
import { type FastifyReply } from 'fastify';
import { PassportError, type ChainReader, type Clock } from '@passport/core';
import { type SessionStore } from '@passport/core/ports';
import { CachingChainReader } from '@passport/adapters/caching';
import { RequestId } from '../../http/request-id.decorator.js';
import { CHAIN_READER, CLOCK, SESSION_STORE } from '../../infrastructure/di-tokens.js';
import { formatPrometheus, type MetricsSnapshot } from '../../metrics/metrics.snapshot.js';
import { RequestMetrics } from '../../metrics/request-metrics.js';
import { VerifyMetrics } from '../../metrics/verify-metrics.js';
import { ApiErrors } from '../../openapi/api-errors.decorator.js';
import { BearerAuthGuard } from '../bearer/bearer-auth.guard.js';
import { PrivilegedGuard } from '../bearer/privileged.guard.js';
import { PRIVILEGED_ERRORS } from './sessions-admin.controller.js';

const counts = (properties: string[]) => ({
  type: 'object' as const,
  required: properties,
  properties: Object.fromEntries(properties.map((p) => [p, { type: 'integer' as const }])),
});

export class MetricsDto {
  @ApiProperty(counts(['total', 'errors', 'perMinute']))
  requests!: MetricsSnapshot['requests'];

  @ApiProperty(counts(['active', 'total']))
  sessions!: MetricsSnapshot['sessions'];

  @ApiProperty(counts(['reads', 'cacheHits']))
  chain!: MetricsSnapshot['chain'];

  @ApiProperty({
    type: 'object',
    required: ['total', 'verified', 'rejected', 'invalid', 'failureReasons', 'refused'],
    properties: {
      total: { type: 'integer' },
      verified: { type: 'integer' },
      rejected: { type: 'integer' },
      invalid: { type: 'integer' },
      failureReasons: { type: 'object', additionalProperties: { type: 'integer' } },
      refused: {
        type: 'object',
        description: 'Lines that verified but were refused because the replay store could not record them, by error code.',
        additionalProperties: { type: 'integer' },
      },
    },
  })
  verify!: MetricsSnapshot['verify'];

  @ApiProperty({
    type: 'object',
    description: 'Per route pattern: request count and recent latency percentiles (ms).',
    additionalProperties: {
      type: 'object',
      required: ['count', 'p50Ms', 'p95Ms', 'p99Ms'],
      properties: { count: { type: 'integer' }, p50Ms: { type: 'number' }, p95Ms: { type: 'number' }, p99Ms: { type: 'number' } },
    },
  })
  routes!: MetricsSnapshot['routes'];

  @ApiProperty()
  requestId!: string;

  @ApiProperty({ format: 'date-time' })
  timestamp!: string;
}

/** True when the client prefers Prometheus text: it names text/plain and not JSON. */
export function wantsPrometheus(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept.split(',').map((part) => part.split(';')[0].trim().toLowerCase());
  return types.includes('text/plain') && !types.includes('application/json');
}

@ApiTags('admin')
@Controller('api/metrics')
export class MetricsController {
  constructor(
    private readonly requests: RequestMetrics,
    private readonly verify: VerifyMetrics,
    @Inject(SESSION_STORE) private readonly sessions: SessionStore,
    @Inject(CHAIN_READER) private readonly chain: ChainReader,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get()
  @UseGuards(BearerAuthGuard, PrivilegedGuard)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Service metrics (privileged); Prometheus text with Accept: text/plain' })
  @ApiProduces('application/json', 'text/plain')
  @ApiOkResponse({ type: MetricsDto })
  @ApiErrors(...PRIVILEGED_ERRORS, 'METRICS_FAILED')
  async metrics(
    @Headers('accept') accept: string | undefined,
    @RequestId() requestId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<MetricsDto | string> {
    const now = this.clock.nowMs();
    let snapshot: MetricsSnapshot;
    try {
      const [active, listed] = await Promise.all([this.sessions.countOpen(now), this.sessions.list({ offset: 0, limit: 1 })]);
      const chainStats = this.chain instanceof CachingChainReader ? this.chain.stats() : { reads: 0, cacheHits: 0 };
      snapshot = {
        requests: this.requests.requests(now),
        sessions: { active, total: listed.total },
        chain: { reads: chainStats.reads, cacheHits: chainStats.cacheHits },
        verify: this.verify.figures(),
        routes: this.requests.routeFigures(),
      };
    } catch {
      throw new PassportError('METRICS_FAILED');
    }
    if (wantsPrometheus(accept)) {
      reply.header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8');
      return formatPrometheus(snapshot);
    }
    return { ...snapshot, requestId, timestamp: new Date(now).toISOString() };
  }
}
