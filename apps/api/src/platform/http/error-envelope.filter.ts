/**
 * The global exception filter: every error of every route (and of Fastify's body parsing, hooks and
 * not-found handling) is answered with the ErrorResponse envelope. Unknown routes get the
 * documentation links, known paths with the wrong method 405 with `Allow`, every 429 `Retry-After` and a
 * closed connection (docs/protocol.md §5). A body POSTed to /mcp that cannot be read is answered as a
 * JSON-RPC error instead (json-rpc-body-failure.ts).
 * Unexpected errors are logged with their stack and answered with a generic 500 `INTERNAL_ERROR`.
 */
import { type ArgumentsHost, Catch, type ExceptionFilter, Inject } from '@nestjs/common';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { causeForLog } from './cause-for-log.js';
import { newRequestUlid } from './request-ulid.js';
import { type AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../infrastructure/di-tokens.js';
import { buildErrorEnvelope } from './error-envelope.js';
import { mapException } from './exception-mapping.js';
import { RouteRegistry } from './route-registry.js';
import { AppError } from './app.error.js';
import { type PassportError } from '@passport/core';
import { httpStatusOfError } from './http-status.table.js';
import { JSON_UTF8 } from './json-content-type.js';
import { jsonRpcBodyFailure } from './json-rpc-body-failure.js';
import { closeAfterAnswer, onceArrivedBodyIsRead } from './lingering-close.js';

/** Links to the documentation, as absolute URLs of this deployment. */
export function documentationLinks(publicBaseUrl: string): Record<string, string> {
  return {
    discovery: `${publicBaseUrl}/`,
    openapi: `${publicBaseUrl}/openapi.json`,
    docs: `${publicBaseUrl}/docs`,
    mcp: `${publicBaseUrl}/.well-known/mcp`,
  };
}

/**
 * A sender at its replay quota gets room back only as its oldest records expire (24 h after their
 * lines), which the stores do not report; Retry-After is then this polling hint, not a promise.
 */
export const REPLAY_QUOTA_RETRY_AFTER_SECONDS = 60;

/** The Retry-After of a refusal: the error's own `retryAfterSeconds`, else a hint per code (at least 1). */
function retryAfterSecondsOf(error: PassportError<string>): number {
  const seconds = Number(error.details?.retryAfterSeconds);
  if (Number.isFinite(seconds) && seconds > 0) return Math.ceil(seconds);
  return error.code === 'REPLAY_QUOTA_EXCEEDED' ? REPLAY_QUOTA_RETRY_AFTER_SECONDS : 1;
}

/** An error's cause (why a store was unavailable, say) in one printable line, for a log line without a stack. */
function causeOf(exception: unknown): string | undefined {
  const raw = (exception as { cause?: unknown } | null)?.cause;
  const cause = causeForLog(raw);
  if (cause === undefined) return undefined;
  return raw instanceof Error ? `${cause.type}: ${cause.message}` : cause.message;
}

@Catch()
export class ErrorEnvelopeFilter implements ExceptionFilter {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly routes: RouteRegistry,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const requestId = typeof request?.id === 'string' ? request.id : newRequestUlid();

    const mapped = mapException(exception);
    const { routeNotFound, unexpected } = mapped;
    let error = mapped.error;
    if (routeNotFound) {
      const allowed = this.routes.allowedMethods(request.url);
      if (allowed.length > 0) {
        error = new AppError('METHOD_NOT_ALLOWED', { allowed });
        reply.header('Allow', allowed.join(', '));
      } else {
        error = new AppError('ENDPOINT_NOT_FOUND');
      }
    }
    // Every 404 of an unknown path (router or handler) carries the documentation links.
    if (error.code === 'ENDPOINT_NOT_FOUND' && error.details?.documentation === undefined) {
      const details = {
        ...(error.details ?? {}),
        documentation: documentationLinks(this.config.publicBaseUrl),
      };
      error = new AppError('ENDPOINT_NOT_FOUND', details, error.message);
    }
    const status = httpStatusOfError(error);
    if (unexpected) request.log?.error({ err: exception }, 'request failed with an unexpected error');
    // A decided 503 (draining, a dependency down, a full store): one line without a stack, since an
    // outage brings one with every request.
    else if (status === 503)
      request.log?.warn(
        { code: error.code, details: error.details, cause: causeOf(exception) },
        'request answered 503',
      );
    // A decided 500 that recorded its cause (a store refusing a logout's write): an error, with the
    // cause's own stack rather than the envelope's.
    else if (status >= 500)
      request.log?.error(
        { code: error.code, details: error.details, cause: causeForLog((exception as Error).cause) },
        `request answered ${status}`,
      );

    if (status === 429 || error.code === 'SESSION_CAPACITY_REACHED') {
      reply.header('Retry-After', String(retryAfterSecondsOf(error)));
      // A refused client gets its socket back closed: held keep-alive or slow-body sockets are freed.
      reply.header('Connection', 'close');
    }
    // A 503 that knows when the service comes back (a store's decided pause: RFC 9110 §10.2.3) says so.
    else if (status === 503 && Number(error.details?.retryAfterSeconds) > 0)
      reply.header('Retry-After', String(retryAfterSecondsOf(error)));
    // RFC 9110 §15.5.2: a 401 names the scheme that would be accepted; RFC 6750 §3.1 adds invalid_token
    // only when the bearer token itself was refused, a session's JWT or the /metrics scrape token (a
    // client drops its token on it; a refused login signature says nothing about a token it may carry).
    if (status === 401)
      reply.header(
        'WWW-Authenticate',
        (error.code === 'INVALIDATED_TOKEN' || error.code === 'INVALID_CREDENTIALS') &&
          /^Bearer\s+\S/i.test(request.headers?.authorization ?? '')
          ? 'Bearer realm="passport", error="invalid_token"'
          : 'Bearer realm="passport"',
      );
    if (reply.sent) return;
    const send = (unread: boolean): void => {
      if (reply.sent) return;
      // An error before the body was read (a 415, say) closes too: the body is not read to its end.
      if (unread) reply.header('Connection', 'close');
      // Set here for a refusal, by Fastify for a body it could not read (one beyond the limit, say).
      if (reply.getHeader('connection') === 'close' && request?.raw) closeAfterAnswer(request.raw);
      reply
        .status(status)
        .header('X-Request-Id', requestId)
        // An error answers one request: no cache keeps it (a 404 is cacheable by default, and a 401 or
        // 403 of a privileged route must not outlive the request).
        .header('Cache-Control', 'no-store')
        .header('Content-Type', JSON_UTF8)
        .send(JSON.stringify(jsonRpcBodyFailure(request, error) ?? buildErrorEnvelope(error, requestId)));
    };
    if (request?.raw) onceArrivedBodyIsRead(request.raw, send);
    else send(false);
  }
}
