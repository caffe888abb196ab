/**
 * Global providers of the core's process-local ports: the clock and the signature verifier (the
 * node:crypto lane with a bounded cache of key objects, the server's hot path).
 */
import { Global, Module } from '@nestjs/common';
import { systemClock } from '@passport/core';
import { createNodeVerifier } from '@passport/core/node';
import { CLOCK, SIGNATURE_VERIFIER } from './di-tokens.js';

@Global()
@Module({
  providers: [
    { provide: CLOCK, useValue: systemClock },
    { provide: SIGNATURE_VERIFIER, useFactory: () => createNodeVerifier({ keyCacheSize: 4096 }) },
  ],
  exports: [CLOCK, SIGNATURE_VERIFIER],
})
export class CoreServicesModule {}
