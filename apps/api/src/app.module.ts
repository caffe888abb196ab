/**
 * The application's root module. `AppModule.forRoot(config)` makes the validated configuration and the
 * clock global and lists the feature modules; each feature module imports the platform module (chain,
 * store, metrics, HTTP rules, OpenAPI, readiness, health) and the other features it uses.
 */
import { type DynamicModule, Module } from '@nestjs/common';
import { type Clock } from '@passport/core';
import { AdminModule } from './admin/admin.module.js';
import { DidModule } from './did/did.module.js';
import { DiscoveryModule } from './discovery/discovery.module.js';
import { HolaModule } from './hola/hola.module.js';
import { IdentityModule } from './identity/identity.module.js';
import { LoginModule } from './login/login.module.js';
import { McpModule } from './mcp/mcp.module.js';
import { type AppConfig } from './platform/config/app-config.js';
import { ConfigModule } from './platform/config/config.module.js';
import { PlatformModule } from './platform/platform.module.js';
import { SessionModule } from './session/session.module.js';
import { SignClientModule } from './signclient/signclient.module.js';

@Module({})
export class AppModule {
  /** `options.clock`: the clock every component reads (tests inject a FixedClock; default the system clock). */
  static forRoot(config: AppConfig, options: { readonly clock?: Clock } = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config, options.clock),
        PlatformModule,
        SessionModule,
        LoginModule,
        McpModule,
        HolaModule,
        IdentityModule,
        AdminModule.forRoot(config),
        DidModule,
        SignClientModule,
        DiscoveryModule,
      ],
    };
  }
}
