/**
 * Global providers of the core's process-local ports: the clock and the node:crypto signature lane in
 * both forms (on the calling thread, and on libuv's thread pool for HOLA lines), sharing one bounded
 * cache of key objects so a key is built once for logins and HOLA lines alike. `forRoot(clock)` lets
 * tests drive time (the core's FixedClock); the application uses the system clock.
 */
import { type DynamicModule, Global, Module } from '@nestjs/common';
import { systemClock, type Clock } from '@passport/core';
import { createNodeThreadPoolVerifier, createNodeVerifier, KeyObjectLruCache } from '@passport/core/node';
import { ASYNC_SIGNATURE_VERIFIER, CLOCK, SIGNATURE_VERIFIER } from './di-tokens.js';

const KEY_OBJECT_CACHE = Symbol('KEY_OBJECT_CACHE');
const KEY_OBJECT_CACHE_SIZE = 4096;

@Global()
@Module({
  providers: [
    { provide: KEY_OBJECT_CACHE, useFactory: () => new KeyObjectLruCache(KEY_OBJECT_CACHE_SIZE) },
    {
      provide: SIGNATURE_VERIFIER,
      inject: [KEY_OBJECT_CACHE],
      useFactory: (keyCache: KeyObjectLruCache) => createNodeVerifier({ keyCache }),
    },
    {
      provide: ASYNC_SIGNATURE_VERIFIER,
      inject: [KEY_OBJECT_CACHE],
      useFactory: (keyCache: KeyObjectLruCache) => createNodeThreadPoolVerifier({ keyCache }),
    },
  ],
  exports: [SIGNATURE_VERIFIER, ASYNC_SIGNATURE_VERIFIER],
})
export class CoreServicesModule {
  static forRoot(clock: Clock = systemClock): DynamicModule {
    return { module: CoreServicesModule, providers: [{ provide: CLOCK, useValue: clock }], exports: [CLOCK] };
  }
}
