/**
 * The cross-cutting HTTP rules of docs/protocol.md §5 that live in Nest: the global error-envelope filter
 * and the route registry it uses for 405. (The Fastify-level parts, namely body parser, size limits,
 * request id, client-address trust and the rate-limit hook, are installed by `app.factory.ts`.)
 */
import { Global, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ErrorEnvelopeFilter } from './error-envelope.filter.js';
import { RouteRegistry } from './route-registry.js';

@Global()
@Module({
  providers: [RouteRegistry, { provide: APP_FILTER, useClass: ErrorEnvelopeFilter }],
  exports: [RouteRegistry],
})
export class HttpModule {}
