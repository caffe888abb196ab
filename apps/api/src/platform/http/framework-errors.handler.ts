/**
 * Errors Fastify raises before routing (Fastify `frameworkErrors`): a path that is not valid
 * percent-encoding (`FST_ERR_BAD_URL`, e.g. `/api/identity/token/%ff/public`) and a path parameter
 * beyond `maxParamLength` (`FST_ERR_MAX_PARAM_LENGTH`). No hook runs for these requests, so the handler
 * does what the hooks would: it meters them against the public rate limit, records them in the request
 * metrics and answers the ErrorResponse envelope with `X-Request-Id`, like every other answer.
 * Fastify's proxy-aware request is not built for them, so the client address is computed here with the
 * same rule (`clientAddress`): else every client's bad URLs are charged to the trusted proxy's own
 * address, and one client's would make everyone's 429.
 */
import { PassportError } from '@passport/core';
import { type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import { buildErrorEnvelope } from './error-envelope.js';
import { AppError } from './app.error.js';
import { httpStatusOfError } from './http-status.table.js';
import { JSON_UTF8 } from './json-content-type.js';
import { closeAfterAnswer, dropRequest, isClosing, onceArrivedBodyIsRead } from './lingering-close.js';

/** Filled in once the app's providers exist (the handler must be given to Fastify before that). */
export interface FrameworkErrorServices {
  rateLimit?: (request: FastifyRequest, clientAddress?: string) => Promise<void> | undefined;
  /** The client address as `request.ip` gives it on routed requests (TRUSTED_PROXIES honoured). */
  clientAddress?: (request: FastifyRequest) => string;
  record?: (method: string, statusCode: number, elapsedMs: number) => void;
  /** Whether the server is draining (its answers then say `Connection: close`, as the request hook's do). */
  draining?: () => boolean;
}

export function createFrameworkErrorHandler(services: FrameworkErrorServices) {
  return function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
    void answer(err, request, reply, services);
  };
}

async function answer(
  err: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
  services: FrameworkErrorServices,
): Promise<void> {
  // A request after an answer that closed the connection is not processed, nor answered (RFC 9112 §9.6).
  if (isClosing(request.raw.socket)) {
    reply.hijack();
    dropRequest(request.raw);
    return;
  }
  let error = frameworkError(err);
  try {
    await services.rateLimit?.(request, services.clientAddress?.(request));
  } catch (limited) {
    if (limited instanceof PassportError) error = limited;
  }
  if (error.code === 'RATE_LIMIT_EXCEEDED') {
    reply.header('Retry-After', String(error.details?.retryAfterSeconds ?? 1)).header('Connection', 'close');
  }
  // As the request hook does for routed requests: a body this answer leaves unread (it comes before
  // any body is read) closes the connection, so that it is read for the linger at most and not to its
  // end (a probe's endless chunked body behind a bad URL, answered keep-alive, was read until the request
  // timeout); so does a drain.
  const unread = await new Promise<boolean>((resolve) => onceArrivedBodyIsRead(request.raw, resolve));
  if (services.draining?.() || unread) reply.header('Connection', 'close');
  if (reply.sent) return;
  if (reply.getHeader('connection') === 'close') closeAfterAnswer(request.raw);
  services.record?.(request.method, httpStatusOfError(error), reply.elapsedTime);
  void reply
    .status(httpStatusOfError(error))
    .header('X-Request-Id', request.id)
    .header('Cache-Control', 'no-store')
    .header('Content-Type', JSON_UTF8)
    .send(JSON.stringify(buildErrorEnvelope(error, request.id)));
}

function frameworkError(err: FastifyError): PassportError<string> {
  switch (err.code) {
    case 'FST_ERR_BAD_URL':
      return new AppError('INVALID_URL');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('URI_TOO_LONG');
    default:
      return new AppError('INTERNAL_ERROR');
  }
}
