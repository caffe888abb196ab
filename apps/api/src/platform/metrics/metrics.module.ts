/**
 * Metrics: the request recorders (the JSON percentiles and the operators' prom-client histogram; their
 * onResponse hook body is `request-metrics.hook.ts`, installed with every other hook by
 * `platform/fastify-hooks.ts`) and the verify outcome counters. The endpoints that render them are in
 * `admin/`.
 */
import { Module } from '@nestjs/common';
import { OperatorMetrics } from './operator-metrics.js';
import { RequestMetrics } from './request-metrics.js';
import { VerifyMetrics } from './verify-metrics.js';

const providers = [RequestMetrics, VerifyMetrics, OperatorMetrics];

@Module({ providers, exports: providers })
export class MetricsModule {}
