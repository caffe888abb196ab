/**
 * Answers errors Node's HTTP parser raises before a request exists (Fastify `clientErrorHandler`):
 * headers over the limit become 400 `REQUEST_HEADER_TOO_LARGE` in the ErrorResponse envelope instead
 * of Node's bare 431; other malformed requests a 400 `VALIDATION_FAILED` envelope. There are no parsed
 * headers here, so the request id is always a new ULID.
 */
import { type Socket } from 'node:net';
import { PassportError } from '@passport/core';
import { newRequestUlid } from './request-ulid.js';
import { buildErrorEnvelope } from './error-envelope.js';

export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // A client that never finished its request gets no answer (as Node does for an idle socket).
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    socket.destroy();
    return;
  }
  const error = new PassportError(
    err.code === 'HPE_HEADER_OVERFLOW' ? 'REQUEST_HEADER_TOO_LARGE' : 'VALIDATION_FAILED',
  );
  const requestId = newRequestUlid();
  const body = JSON.stringify(buildErrorEnvelope(error, requestId));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${error.status} Bad Request\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
