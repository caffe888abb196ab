/**
 * The application's root module. `AppModule.forRoot(config)` makes the validated configuration global
 * and assembles the adapter families (chain, store), the MCP surface, and the HTTP app's own
 * endpoints. Feature modules of other parts are added to `imports` here.
 */
import { type DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from './auth/auth.module.js';
import { ChainModule } from './chain/chain.module.js';
import { ConciergeController } from './concierge/concierge.controller.js';
import { type AppConfig } from './config/app-config.js';
import { ConfigModule } from './config/config.module.js';
import { DiscoveryController } from './discovery/discovery.controller.js';
import { DocsController } from './docs/docs.controller.js';
import { HealthController } from './health/health.controller.js';
import { HttpModule } from './http/http.module.js';
import { LoginChallengeController } from './login-challenge/login-challenge.controller.js';
import { type Clock } from '@passport/core';
import { CoreServicesModule } from './infrastructure/core-services.module.js';
import { LifecycleModule } from './lifecycle/lifecycle.module.js';
import { McpModule } from './mcp/mcp.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { OpenApiModule } from './openapi/openapi.module.js';
import { StoreModule } from './store/store.module.js';
import { AgentsModule } from './agents/agents.module.js';
import { DidModule } from './did/did.module.js';
import { IdentityModule } from './identity/identity.module.js';
import { SignClientModule } from './signclient/signclient.module.js';
import { VerifyModule } from './verify/verify.module.js';

@Module({})
export class AppModule {
  /** `options.clock`: the clock every component reads (tests inject a FixedClock; default the system clock). */
  static forRoot(config: AppConfig, options: { readonly clock?: Clock } = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        CoreServicesModule.forRoot(options.clock),
        HttpModule,
        OpenApiModule,
        MetricsModule.forRoot(config),
        LifecycleModule,
        ChainModule,
        StoreModule,
        AuthModule,
        McpModule,
        VerifyModule,
        IdentityModule,
        AgentsModule,
        DidModule,
        SignClientModule,
      ],
      controllers: [
        DiscoveryController,
        HealthController,
        ConciergeController,
        LoginChallengeController,
        DocsController,
      ],
    };
  }
}
