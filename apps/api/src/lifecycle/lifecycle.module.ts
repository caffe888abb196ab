/**
 * Lifecycle (global): the readiness flag and `GET /health/ready`. While draining, every response
 * carries `Connection: close` (set by the app's request hook, see app.factory.ts), so keep-alive
 * clients (a balancer's pool) open their next request on another instance instead of on a connection
 * that is about to close.
 */
import { Global, Module } from '@nestjs/common';
import { Readiness } from './readiness.js';
import { ReadinessController } from './readiness.controller.js';

@Global()
@Module({ providers: [Readiness], exports: [Readiness], controllers: [ReadinessController] })
export class LifecycleModule {}
