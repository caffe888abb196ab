/** The onResponse hook that counts every route's response in both recorders (JSON percentiles and Prometheus). */
import { type Clock } from '@passport/core';
import { type onResponseHookHandler } from 'fastify';
import { type OperatorMetrics } from './operator-metrics.js';
import { type RequestMetrics } from './request-metrics.js';

export function createRequestMetricsHook(
  requests: RequestMetrics,
  operator: OperatorMetrics,
  clock: Clock,
): onResponseHookHandler {
  return (request, reply, done) => {
    const route = request.routeOptions.url;
    const status = reply.statusCode;
    const elapsedMs = reply.elapsedTime;
    requests.record(route, status, elapsedMs, clock.nowMs());
    operator.recordRequest(route, request.method, status, elapsedMs);
    done();
  };
}
