/**
 * A bound on the requests of one connection in flight at once (received, not yet answered). Node's HTTP
 * parser hands the app every request of one read at once (64 KiB: some 1,600 short pipelined requests),
 * and each answer waits in memory behind the ones before it until the client reads. A client that
 * pipelines requests and never reads makes the server hold every answer (1,500 requests on one socket
 * ran a 512 MB heap out of memory). A request beyond the bound is refused with 429
 * `RATE_LIMIT_EXCEEDED` (`details.reason: 'pipelined_requests'`), which closes the connection after it.
 */
import { PassportError } from '@passport/core';
import { type FastifyInstance, type FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** Counted among its connection's requests in flight (`admitOnConnection`), until answered. */
    countedOnConnection: boolean;
  }
}

/** Requests of one connection in flight at once; an HTTP/1.1 client that waits for each answer has one. */
export const MAX_REQUESTS_IN_FLIGHT_PER_CONNECTION = 32;

const IN_FLIGHT = Symbol('passport.requestsInFlight');

interface CountedSocket {
  [IN_FLIGHT]?: number;
}

/**
 * Declares the request's flag with Fastify, so every request object is built with it: set on requests
 * as they come, it would change their shape midway through each request's life.
 */
export function declareConnectionCount(fastify: FastifyInstance): void {
  fastify.decorateRequest('countedOnConnection', false);
}

/** Counts the request on its connection; throws (429) when the connection already has the bound in flight. */
export function admitOnConnection(request: FastifyRequest): void {
  const socket = request.raw.socket as unknown as CountedSocket | null;
  if (!socket) return;
  const inFlight = (socket[IN_FLIGHT] ?? 0) + 1;
  socket[IN_FLIGHT] = inFlight;
  request.countedOnConnection = true;
  if (inFlight > MAX_REQUESTS_IN_FLIGHT_PER_CONNECTION)
    throw new PassportError('RATE_LIMIT_EXCEEDED', {
      retryAfterSeconds: 1,
      reason: 'pipelined_requests',
      maxRequestsInFlight: MAX_REQUESTS_IN_FLIGHT_PER_CONNECTION,
    });
}

/** Uncounts an answered request (Fastify's onResponse); requests answered before `admitOnConnection` are skipped. */
export function releaseOnConnection(request: FastifyRequest): void {
  if (!request.countedOnConnection) return;
  request.countedOnConnection = false;
  const socket = request.raw.socket as unknown as CountedSocket | null;
  if (socket) socket[IN_FLIGHT] = (socket[IN_FLIGHT] ?? 1) - 1;
}
