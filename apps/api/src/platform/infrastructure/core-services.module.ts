/**
 * Providers of the core's process-local ports: the node:crypto signature lane in
 * both forms (on the calling thread, and on libuv's thread pool for HOLA lines), sharing one bounded
 * cache of key objects so a key is built once for logins and HOLA lines alike. (The clock comes from
 * the config module.)
 */
import { Module } from '@nestjs/common';
import { createNodeThreadPoolVerifier, createNodeVerifier, KeyObjectLruCache } from '@passport/core/node';
import { ASYNC_SIGNATURE_VERIFIER, SIGNATURE_VERIFIER } from './di-tokens.js';

const KEY_OBJECT_CACHE = Symbol('KEY_OBJECT_CACHE');
const KEY_OBJECT_CACHE_SIZE = 4096;

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
export class CoreServicesModule {}
