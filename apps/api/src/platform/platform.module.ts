/**
 * What every feature stands on, imported by each feature module that needs it (not global): the core's
 * signature lanes, the chain and store adapters, metrics recorders, the HTTP rules (error envelope, route
 * registry), the OpenAPI document, readiness, and `GET /health`. Configuration and the clock come from
 * the global `ConfigModule`.
 */
import { Module } from '@nestjs/common';
import { ChainModule } from './chain/chain.module.js';
import { HealthController } from './health/health.controller.js';
import { HttpModule } from './http/http.module.js';
import { CoreServicesModule } from './infrastructure/core-services.module.js';
import { LifecycleModule } from './lifecycle/lifecycle.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { OpenApiModule } from './openapi/openapi.module.js';
import { StoreModule } from './store/store.module.js';

const modules = [
  CoreServicesModule,
  HttpModule,
  OpenApiModule,
  MetricsModule,
  LifecycleModule,
  ChainModule,
  StoreModule,
];

@Module({ imports: modules, exports: modules, controllers: [HealthController] })
export class PlatformModule {}
