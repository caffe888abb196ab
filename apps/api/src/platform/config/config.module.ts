/**
 * The two values the whole app is built from, available everywhere: the validated `AppConfig` as
 * `APP_CONFIG` and the clock as `CLOCK` (tests drive time with the core's FixedClock; the application
 * uses the system clock). The one global module: every other module imports what it uses.
 */
import { type DynamicModule, Global, Module } from '@nestjs/common';
import { systemClock, type Clock } from '@passport/core';
import { APP_CONFIG, CLOCK } from '../infrastructure/di-tokens.js';
import { type AppConfig } from './app-config.js';

@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig, clock: Clock = systemClock): DynamicModule {
    return {
      module: ConfigModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: CLOCK, useValue: clock },
      ],
      exports: [APP_CONFIG, CLOCK],
    };
  }
}
