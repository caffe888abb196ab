/**
 * The one place that installs Fastify hooks, in the order they run (Fastify runs hooks of one kind in
 * registration order). Each hook's body lives with the rule it serves; this file only decides order:
 * - onRoute: the route registry (405 answers);
 * - onRequest: one hook for the app's own per-request rules (each hook is a step of Fastify's chain on
 *   every request, so six rules in six hooks would cost six steps): a request behind an answer that
 *   closed its connection dropped unanswered, `X-Request-Id` on every response, `Connection: close`
 *   while draining (and for a GET or HEAD carrying a body), the bound on one connection's requests in
 *   flight, the public per-address rate limit, then the Host check (after the limit, so it is metered);
 * - onResponse: the debug access line (when debug is on); the connection's request answered, and the
 *   request metrics.
 * Installed before `app.init()`, so the route registry sees every route.
 */
import { type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type Clock } from '@passport/core';
import { type RateLimitStore } from '@passport/core/ports';
import { type FastifyInstance, type FastifyRequest, type HookHandlerDoneFunction } from 'fastify';
import { type Logger } from 'pino';
import { type AppConfig } from './config/app-config.js';
import { checkHostHeader } from './http/client-error.handler.js';
import {
  admitOnConnection,
  declareConnectionCount,
  releaseOnConnection,
} from './http/connection-requests.bound.js';
import { closeAfterAnswer, dropRequest, hasUnreadBody, isClosing } from './http/lingering-close.js';
import { createRateLimitHook, type RateLimitCheck } from './http/rate-limit.hook.js';
import { RouteRegistry } from './http/route-registry.js';
import { PUBLIC_RATE_LIMIT_STORE } from './infrastructure/di-tokens.js';
import { Readiness } from './lifecycle/readiness.js';
import { accessLogHook } from './logging/access-log.hook.js';
import { OperatorMetrics } from './metrics/operator-metrics.js';
import { createRequestMetricsHook } from './metrics/request-metrics.hook.js';
import { RequestMetrics } from './metrics/request-metrics.js';

/** Returns the rate-limit hook, which the framework-error handler also applies to the requests it answers. */
export function installFastifyHooks(
  app: NestFastifyApplication,
  fastify: FastifyInstance,
  { config, logger, clock }: { config: AppConfig; logger: Logger; clock: Clock },
): RateLimitCheck {
  declareConnectionCount(fastify);
  const routes = app.get(RouteRegistry);
  fastify.addHook('onRoute', (route) => routes.add(route));

  const rateLimit = createRateLimitHook(
    app.get<RateLimitStore>(PUBLIC_RATE_LIMIT_STORE),
    config.rateLimit,
    clock,
  );
  const readiness = app.get(Readiness);
  // A callback hook, not an async one: with an in-process rate-limit store nothing here waits, and an
  // async hook would cost a promise and a microtask turn on every request.
  const afterLimit = (request: FastifyRequest, done: HookHandlerDoneFunction): void => {
    try {
      checkHostHeader(request);
    } catch (err) {
      done(err as Error);
      return;
    }
    done();
  };
  fastify.addHook('onRequest', (request, reply, done) => {
    // A request after an answer that closed the connection (pipelined behind it, or sent while the
    // socket lingers) is not processed, nor answered (RFC 9112 §9.6).
    if (isClosing(request.raw.socket)) {
      reply.hijack();
      dropRequest(request.raw);
      done();
      return;
    }
    void reply.header('X-Request-Id', request.id);
    // Keep-alive clients (a balancer's pool) open their next request on another instance. A body sent
    // with a GET or HEAD (whose routes read none) closes the connection too: it is not read to its end.
    if (
      readiness.draining ||
      ((request.method === 'GET' || request.method === 'HEAD') && hasUnreadBody(request.raw))
    ) {
      void reply.header('Connection', 'close');
      closeAfterAnswer(request.raw);
    }
    let pending: Promise<void> | undefined;
    try {
      admitOnConnection(request);
      pending = rateLimit(request);
    } catch (err) {
      done(err as Error);
      return;
    }
    if (pending === undefined) afterLimit(request, done);
    else pending.then(() => afterLimit(request, done), done);
  });

  if (logger.isLevelEnabled('debug')) fastify.addHook('onResponse', accessLogHook);
  const recordMetrics = createRequestMetricsHook(app.get(RequestMetrics), app.get(OperatorMetrics), clock);
  fastify.addHook('onResponse', function answered(request, reply, done) {
    releaseOnConnection(request);
    recordMetrics.call(this, request, reply, done);
  });
  return rateLimit;
}
