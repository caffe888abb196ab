/**
 * Metrics (global): the request recorder, hooked into Fastify's onResponse so every route counts,
 * and the verify outcome counters. `GET /api/metrics` lives in the auth module (privileged tier).
 */
import { Global, Inject, Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { type FastifyInstance } from 'fastify';
import { type Clock } from '@passport/core';
import { CLOCK } from '../infrastructure/di-tokens.js';
import { RequestMetrics } from './request-metrics.js';
import { VerifyMetrics } from './verify-metrics.js';

@Global()
@Module({ providers: [RequestMetrics, VerifyMetrics], exports: [RequestMetrics, VerifyMetrics] })
export class MetricsModule implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly requests: RequestMetrics,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url;
      this.requests.record(route, reply.statusCode, reply.elapsedTime, this.clock.nowMs());
      done();
    });
  }
}
