/**
 * Builds the application: Nest on Fastify with the cross-cutting HTTP rules of docs/protocol.md §5 and §7
 * installed at the Fastify level, where they run before routing, parsing and guards:
 * - request id (`genReqId`) echoed in `X-Request-Id`, and pino logs labelled `requestId`;
 * - JSON-only body parsing (415 for other bodies, `INVALID_JSON`), 64 KiB bodies, 16 KiB headers
 *   (with a `clientErrorHandler` that answers the JSON envelope instead of Node's bare 431);
 * - client address = TCP peer, `X-Forwarded-For` only from TRUSTED_PROXIES (never `trustProxy: true`);
 * - the public per-address rate limit; 429 answers close their socket;
 * - time bounds (`HTTP_*_TIMEOUT_MS`): a request not arrived whole within the request timeout gets 408;
 * - framework and Node client errors (bad URL, over-long parameter, missing Host, timeouts, Expect,
 *   CONNECT) answered in the envelope with a request id;
 * - CORS for the origins in CORS_ORIGINS (none by default);
 * - a route registry for 405 and the OpenAPI document service bound to the app.
 * Every Fastify hook is installed by `platform/fastify-hooks.ts`.
 */
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type Clock } from '@passport/core';
import { type FastifyInstance, LogController } from 'fastify';
import { AppModule } from './app.module.js';
import { type AppConfig } from './platform/config/app-config.js';
import { type Server } from 'node:http';
import {
  answerConnectInEnvelope,
  answerExpectationsInEnvelope,
  clientErrorHandler,
  observeAnswersBeforeRouting,
} from './platform/http/client-error.handler.js';
import { lingerBeforeClosing } from './platform/http/lingering-close.js';
import {
  createFrameworkErrorHandler,
  type FrameworkErrorServices,
} from './platform/http/framework-errors.handler.js';
import { clientAddressOf, compileTrustedProxies } from './platform/config/trusted-proxy.js';
import { OperatorMetrics } from './platform/metrics/operator-metrics.js';
import { RequestMetrics } from './platform/metrics/request-metrics.js';
import { registerJsonBodyParser } from './platform/http/json-body.parser.js';
import { corsEnabled, corsOptions } from './platform/http/cors.options.js';
import { resolveRequestId } from './platform/http/request-id.js';
import { CLOCK } from './platform/infrastructure/di-tokens.js';
import { installFastifyHooks } from './platform/fastify-hooks.js';
import { Readiness } from './platform/lifecycle/readiness.js';
import { boundStalledSends } from './platform/http/stalled-send.bound.js';
import { rememberPeerAddresses } from './platform/http/peer-address.js';
import { answerHalfClosedClients } from './platform/http/half-closed-clients.js';
import { boundConnectionsPerAddress } from './platform/http/connections-per-address.bound.js';
import { RouteRegistry } from './platform/http/route-registry.js';
import { assertCanListen, listenError } from './platform/http/listen-preflight.js';
import { lazyChildLoggerFactory } from './platform/logging/lazy-request-logger.js';
import { createLogger, PinoNestLogger } from './platform/logging/logger.js';
import { type DestinationStream } from 'pino';
import { OpenApiDocumentService } from './platform/openapi/openapi-document.service.js';

/** Largest accepted request body (docs/protocol.md §5). */
export const BODY_LIMIT_BYTES = 64 * 1024;
/** Largest accepted request header block (docs/protocol.md §5). */
export const HEADER_LIMIT_BYTES = 16 * 1024;

/** `options.clock` replaces the system clock everywhere (tests drive time with the core's FixedClock). */
export interface AppOptions {
  readonly clock?: Clock;
  /** Where the log lines go (standard output when absent). */
  readonly logDestination?: DestinationStream;
}

export async function createApp(
  config: AppConfig,
  options: AppOptions = {},
): Promise<NestFastifyApplication> {
  const logger = createLogger(config, options.logDestination);
  const frameworkErrorServices: FrameworkErrorServices = {};
  const trustedProxies = compileTrustedProxies(config.trustedProxies);
  const timeouts = config.httpTimeouts;
  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    genReqId: (req) => resolveRequestId(req.headers),
    childLoggerFactory: lazyChildLoggerFactory,
    // Fastify's own per-request lines (two at info per request) cost ~30% of throughput in a
    // benchmark; one access line per response is logged at debug below instead, and unexpected
    // errors are logged by the error-envelope filter.
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    http: {
      maxHeaderSize: HEADER_LIMIT_BYTES,
      // Answered in the envelope by checkHostHeader instead of Node's bare 400.
      requireHostHeader: false,
      // Node keeps the first of two Host or Authorization headers and drops the other; a proxy in front
      // may read the other one. Joined, two Hosts are refused (checkHostHeader) and two credentials are
      // a malformed Authorization header (401), instead of one copy being picked silently.
      joinDuplicateHeaders: true,
      headersTimeout: timeouts.headersTimeoutMs,
      // How often Node looks for requests past their timeout (its default, 30 s, would let a slow
      // body live up to twice the request timeout).
      connectionsCheckingInterval: Math.min(1000, Math.ceil(timeouts.requestTimeoutMs / 4)),
    },
    requestTimeout: timeouts.requestTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    connectionTimeout: timeouts.connectionTimeoutMs,
    clientErrorHandler,
    frameworkErrors: createFrameworkErrorHandler(frameworkErrorServices),
    trustProxy: config.trustedProxies.length > 0 ? trustedProxies : false,
  } as ConstructorParameters<typeof FastifyAdapter>[0]);

  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, options), adapter, {
    logger: new PinoNestLogger(logger),
    abortOnError: false,
    // Nest's own parsers (JSON and urlencoded) are replaced by registerJsonBodyParser below.
    bodyParser: false,
  });
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;

  registerJsonBodyParser(fastify, BODY_LIMIT_BYTES);
  // Off by default: nothing runs per request unless an operator allows other origins.
  // Nest passes a function of (request, callback) to @fastify/cors as its options delegate; its type
  // names only the options object.
  if (corsEnabled(config.corsOrigins))
    app.enableCors(corsOptions(config.corsOrigins) as unknown as Parameters<typeof app.enableCors>[0]);
  const clock = app.get<Clock>(CLOCK);
  const rateLimit = installFastifyHooks(app, fastify, { config, logger, clock });
  frameworkErrorServices.rateLimit = rateLimit;
  frameworkErrorServices.clientAddress = (request) => clientAddressOf(request.raw, trustedProxies);
  const readiness = app.get(Readiness);
  frameworkErrorServices.draining = () => readiness.draining;
  const metrics = app.get(RequestMetrics);
  const operatorMetrics = app.get(OperatorMetrics);
  // In both recorders, as the onResponse hook does (else these answers are counted in the JSON metrics
  // and missing from the Prometheus histogram).
  frameworkErrorServices.record = (method, status, elapsedMs) => {
    metrics.record(undefined, status, elapsedMs, clock.nowMs());
    operatorMetrics.recordRequest(undefined, method, status, elapsedMs);
  };
  // Answers written before routing (malformed requests, header overflow, timeouts, CONNECT, an unknown
  // Expect, too many connections from one address): counted as unmatched, with no duration to measure.
  observeAnswersBeforeRouting(fastify.server as Server, (method, status) =>
    frameworkErrorServices.record?.(method, status, 0),
  );
  rememberPeerAddresses(fastify.server as Server);
  if (config.httpMaxConnectionsPerAddress > 0)
    boundConnectionsPerAddress(
      fastify.server as Server,
      config.httpMaxConnectionsPerAddress,
      (address) => trustedProxies(address, 0),
      (refused, addressKey) =>
        logger.warn(
          { refused, addressKey },
          `connections refused: a client address held HTTP_MAX_CONNECTIONS_PER_ADDRESS (${config.httpMaxConnectionsPerAddress}) open`,
        ),
    );
  lingerBeforeClosing(fastify.server as Server);
  answerExpectationsInEnvelope(fastify.server as Server);
  const routes = app.get(RouteRegistry);
  answerConnectInEnvelope(fastify.server as Server, (target) => routes.allowedMethods(target));
  answerHalfClosedClients(fastify.server as Server);
  const stalledSends = boundStalledSends(
    fastify.server as Server,
    timeouts.sendTimeoutMs,
    (pendingBytes) =>
      logger.warn(
        { pendingBytes },
        'connection destroyed: its client read none of its answers for HTTP_SEND_TIMEOUT_MS (pendingBytes: the answer being sent; those behind it are freed too)',
      ),
    () =>
      logger.error(
        'HTTP_SEND_TIMEOUT_MS is not enforced: this Node version gives no write progress on sockets (handle bytesWritten and writeQueueSize)',
      ),
  );
  fastify.addHook('onClose', (_instance, done) => {
    stalledSends.close();
    done();
  });

  app.get(OpenApiDocumentService).attach(app);
  await app.init();
  return app;
}

export interface StartedApp {
  readonly app: NestFastifyApplication;
  /** Base URL the server listens on (the bound address, not PUBLIC_BASE_URL). */
  readonly url: string;
  close(): Promise<void>;
}

export async function startApp(config: AppConfig, options: AppOptions = {}): Promise<StartedApp> {
  await assertCanListen(config);
  const app = await createApp(config, options);
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close().catch(() => undefined);
    throw listenError(error, config);
  }
  app.get(Readiness).markReady();
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return { app, url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, close: () => app.close() };
}
