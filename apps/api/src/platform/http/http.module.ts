/**
 * The cross-cutting HTTP rules of docs/protocol.md §5 that live in Nest: the global error-envelope filter
 * and the route registry it uses for 405. (The Fastify-level parts, namely body parser, size limits,
 * request id and client-address trust, are set by `app.factory.ts`; the hooks, the rate limit among them,
 * are installed by `platform/fastify-hooks.ts`.)
 */
import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ErrorEnvelopeFilter } from './error-envelope.filter.js';
import { RouteRegistry } from './route-registry.js';

@Module({
  providers: [RouteRegistry, { provide: APP_FILTER, useClass: ErrorEnvelopeFilter }],
  exports: [RouteRegistry],
})
export class HttpModule {}
