/**
 * Lifecycle: the readiness flag and `GET /health/ready`. While draining, every response carries
 * `Connection: close` (set by the one request hook in `platform/fastify-hooks.ts`).
 */
import { Module } from '@nestjs/common';
import { Readiness } from './readiness.js';
import { ReadinessController } from './readiness.controller.js';

@Module({ providers: [Readiness], exports: [Readiness], controllers: [ReadinessController] })
export class LifecycleModule {}
