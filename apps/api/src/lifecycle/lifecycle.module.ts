/**
 * Lifecycle (global): the readiness flag and `GET /health/ready`. While draining, every response
 * carries `Connection: close`, so keep-alive clients (a balancer's pool) open their next request on
 * another instance instead of on a connection that is about to close.
 */
import { Global, Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { type FastifyInstance } from 'fastify';
import { Readiness } from './readiness.js';
import { ReadinessController } from './readiness.controller.js';

@Global()
@Module({ providers: [Readiness], exports: [Readiness], controllers: [ReadinessController] })
export class LifecycleModule implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly readiness: Readiness,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onRequest', (_request, reply, done) => {
      if (this.readiness.draining) void reply.header('Connection', 'close');
      done();
    });
  }
}
