/**
 * Metrics (global): the request recorders, hooked into Fastify's onResponse so every route counts (the
 * JSON percentiles and the operators' prom-client histogram), the verify outcome counters, and the
 * snapshot both metrics endpoints render. `GET /api/metrics` lives in the auth module (privileged
 * tier); `GET /metrics` (static scraper token) is registered here only when METRICS_TOKEN is set.
 */
import { type DynamicModule, Global, Inject, Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { type FastifyInstance } from 'fastify';
import { type Clock } from '@passport/core';
import { type AppConfig } from '../config/app-config.js';
import { CLOCK } from '../infrastructure/di-tokens.js';
import { MetricsSnapshotService } from './metrics-snapshot.service.js';
import { OperatorMetrics } from './operator-metrics.js';
import { PrometheusScrapeController } from './prometheus-scrape.controller.js';
import { RequestMetrics } from './request-metrics.js';
import { VerifyMetrics } from './verify-metrics.js';

const providers = [RequestMetrics, VerifyMetrics, OperatorMetrics, MetricsSnapshotService];

@Global()
@Module({})
export class MetricsModule implements OnModuleInit {
  static forRoot(config: Pick<AppConfig, 'metricsToken'>): DynamicModule {
    return {
      module: MetricsModule,
      providers,
      exports: providers,
      controllers: config.metricsToken === undefined ? [] : [PrometheusScrapeController],
    };
  }

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly requests: RequestMetrics,
    private readonly operator: OperatorMetrics,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url;
      const status = reply.statusCode;
      const elapsedMs = reply.elapsedTime;
      this.requests.record(route, status, elapsedMs, this.clock.nowMs());
      this.operator.recordRequest(route, request.method, status, elapsedMs);
      done();
    });
  }
}
