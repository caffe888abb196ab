/**
 * Turns anything a request can throw into a `PassportError` with a catalogue code. This is the one
 * place where framework errors (Nest `HttpException`s, Fastify `FST_*` errors, body-parser failures)
 * become wire codes; unknown errors become `INTERNAL_ERROR` and their text never reaches the client.
 */
import { HttpException, NotFoundException } from '@nestjs/common';
import { isPassportError, type PassportError } from '@passport/core';
import { AppError, type AnyErrorCode } from './app.error.js';
import { httpStatusOfError } from './http-status.table.js';

/** Fastify error codes (`err.code`) with a dedicated wire code. */
const FASTIFY_CODES: Readonly<Record<string, AnyErrorCode>> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_BODY_TOO_LARGE: 'REQUEST_HEADER_TOO_LARGE',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'VALIDATION_FAILED',
  FST_ERR_BAD_URL: 'ENDPOINT_NOT_FOUND',
  FST_ERR_ASYNC_CONSTRAINT: 'ENDPOINT_NOT_FOUND',
};

/** Wire code for an HTTP status when nothing more specific is known. */
const STATUS_CODES: Readonly<Record<number, AnyErrorCode>> = {
  400: 'VALIDATION_FAILED',
  401: 'INVALID_CREDENTIALS',
  403: 'PERMISSION_DENIED',
  404: 'ENDPOINT_NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  410: 'ENDPOINT_REMOVED',
  413: 'REQUEST_HEADER_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMIT_EXCEEDED',
  431: 'REQUEST_HEADER_TOO_LARGE',
  503: 'SERVICE_UNAVAILABLE',
};

export interface MappedError {
  readonly error: PassportError<string>;
  /** True when the error is the router's "no route for this method and path". */
  readonly routeNotFound: boolean;
  /**
   * True when the error was not a decided outcome (log it with its stack): a server error, but not a
   * catalogued 503, which is an answer the app chose (draining, a store or the chain unavailable, a
   * full store) and during an outage comes with every request.
   */
  readonly unexpected: boolean;
}

function fastifyCode(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const code = (value as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('FST_') ? code : undefined;
}

function statusOf(value: unknown): number | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const status = (value as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && Number.isInteger(status) ? status : undefined;
}

function byStatus(status: number): AnyErrorCode {
  return STATUS_CODES[status] ?? (status >= 400 && status < 500 ? 'VALIDATION_FAILED' : 'INTERNAL_ERROR');
}

/** Client-safe validation messages of a Nest `BadRequestException` (class-validator style), if any. */
function validationProblems(exception: HttpException): string[] | undefined {
  const response = exception.getResponse();
  if (typeof response !== 'object' || response === null) return undefined;
  const message = (response as { message?: unknown }).message;
  if (!Array.isArray(message)) return undefined;
  return message.filter((m): m is string => typeof m === 'string').map((m) => m.slice(0, 200));
}

export function mapException(exception: unknown): MappedError {
  // A catalogued 503, or a catalogued 500 that records its cause (a dependency that failed, e.g. a full
  // Redis refusing a logout's write), is an answer the code decided: one warn line with the cause.
  // A catalogued 500 without a cause is logged with its stack.
  if (isPassportError(exception)) {
    const status = httpStatusOfError(exception);
    const decided = status === 503 || exception.cause !== undefined;
    return { error: exception, routeNotFound: false, unexpected: status >= 500 && !decided };
  }

  if (exception instanceof HttpException) {
    const cause = exception.cause;
    // Fastify errors arrive wrapped by the Nest adapter, the original in `cause`.
    const fst = fastifyCode(cause) ?? fastifyCode(exception);
    if (fst && FASTIFY_CODES[fst])
      return { error: new AppError(FASTIFY_CODES[fst]), routeNotFound: false, unexpected: false };
    if (cause instanceof SyntaxError)
      return { error: new AppError('INVALID_JSON'), routeNotFound: false, unexpected: false };

    const status = exception.getStatus();
    const routeNotFound = exception instanceof NotFoundException && /^Cannot [A-Z]+ /.test(exception.message);
    const code = byStatus(status);
    const problems = code === 'VALIDATION_FAILED' ? validationProblems(exception) : undefined;
    return {
      error: new AppError(code, problems ? { problems } : null),
      routeNotFound,
      unexpected: status >= 500,
    };
  }

  // Raw Fastify errors (thrown from hooks or parsers without the Nest wrapper).
  const fst = fastifyCode(exception);
  if (fst && FASTIFY_CODES[fst])
    return { error: new AppError(FASTIFY_CODES[fst]), routeNotFound: false, unexpected: false };
  const status = statusOf(exception);
  if (status !== undefined && status >= 400 && status < 500) {
    return { error: new AppError(byStatus(status)), routeNotFound: false, unexpected: false };
  }
  return { error: new AppError('INTERNAL_ERROR'), routeNotFound: false, unexpected: true };
}
