/**
 * `GET /metrics`: the Prometheus text of `GET /api/metrics` for a scraper, which holds no passport.
 * It presents the static `METRICS_TOKEN` as a bearer token; the module registers this controller only
 * when that variable is set, so without it `/metrics` is an unknown path like any other (404).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type FastifyReply } from 'fastify';
import { PassportError } from '@passport/core';
import { type AppConfig } from '../platform/config/app-config.js';
import { APP_CONFIG } from '../platform/infrastructure/di-tokens.js';
import { ApiErrors } from '../platform/openapi/api-errors.decorator.js';
import { METRICS_TOKEN_AUTH } from '../platform/openapi/openapi-document.service.js';
import { MetricsSnapshotService } from './metrics-snapshot.service.js';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * Compares a presented token with the expected one in time independent of where they differ: both
 * are hashed to 32 bytes first, so neither the content nor the length of the secret leaks.
 */
export function tokenMatches(presented: string, expectedDigest: Buffer): boolean {
  return timingSafeEqual(digest(presented), expectedDigest);
}

/** The token of `Authorization: Bearer <token>` (scheme case-insensitive), else undefined. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
  return match?.[1];
}

@ApiTags('service')
@Controller('metrics')
export class PrometheusScrapeController {
  private readonly expectedDigest: Buffer;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly snapshots: MetricsSnapshotService,
  ) {
    if (config.metricsToken === undefined) throw new Error('PrometheusScrapeController needs METRICS_TOKEN');
    this.expectedDigest = digest(config.metricsToken);
  }

  @Get()
  @ApiBearerAuth(METRICS_TOKEN_AUTH)
  @ApiOperation({
    summary: 'Prometheus text for a scraper (only when METRICS_TOKEN is set; otherwise 404)',
    description:
      'Authorization: Bearer <METRICS_TOKEN>. The same text as GET /api/metrics with Accept: text/plain.',
  })
  @ApiOkResponse({
    description: 'Prometheus text exposition format 0.0.4',
    content: { 'text/plain': { schema: { type: 'string' } } },
  })
  @ApiErrors('INVALID_CREDENTIALS', 'METRICS_FAILED')
  async scrape(
    @Headers('authorization') authorization: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const presented = bearerToken(authorization);
    if (presented === undefined || !tokenMatches(presented, this.expectedDigest))
      // What is expected, never what was sent or any part of the token (an admin probe read only
      // "invalid credentials" and tried a passport's JWT).
      throw new PassportError('INVALID_CREDENTIALS', {
        hint: "send Authorization: Bearer <METRICS_TOKEN>, the server's METRICS_TOKEN (not a passport's JWT)",
      });
    const text = await this.snapshots.prometheusText();
    reply.header('Content-Type', this.snapshots.contentType);
    reply.header('Cache-Control', 'no-store');
    return text;
  }
}
