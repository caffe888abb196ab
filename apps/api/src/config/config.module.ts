/**
 * Makes the validated `AppConfig` available everywhere as `APP_CONFIG` (a global module, so that the
 * chain, store and MCP modules can inject it without importing anything of the HTTP app).
 */
import { type DynamicModule, Global, Module } from '@nestjs/common';
import { APP_CONFIG } from '../infrastructure/di-tokens.js';
import { type AppConfig } from './app-config.js';

@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: APP_CONFIG, useValue: config }],
      exports: [APP_CONFIG],
    };
  }
}
