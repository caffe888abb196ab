/**
 * Lifecycle: the readiness flag and `GET /health/ready`, and what features do as the drain stops accepting. While draining, every response carries
 * `Connection: close` (set by the one request hook in `platform/fastify-hooks.ts`).
 */
import { Module } from '@nestjs/common';
import { DrainListeners } from './drain-listeners.js';
import { Readiness } from './readiness.js';
import { ReadinessController } from './readiness.controller.js';

@Module({
  providers: [Readiness, DrainListeners],
  exports: [Readiness, DrainListeners],
  controllers: [ReadinessController],
})
export class LifecycleModule {}
