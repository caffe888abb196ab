/**
 * While draining, every response carries `Connection: close`, so keep-alive clients (a balancer's pool)
 * open their next request on another instance instead of on a connection that is about to close.
 */
import { type onRequestHookHandler } from 'fastify';
import { type Readiness } from './readiness.js';

export function createDrainingHook(readiness: Readiness): onRequestHookHandler {
  return (_request, reply, done) => {
    if (readiness.draining) void reply.header('Connection', 'close');
    done();
  };
}
