/**
 * The one HOLA verifier of the app: the core use case bound to the chain, the shared replay store,
 * the clock, the node:crypto lane (on the thread pool unless HOLA_VERIFY_THREADPOOL=false), SERVICE_HOST
 * and HOLA_FUTURE_SKEW_MS. Verify and testhola use
 * this same instance, so a nonce accepted by either is a replay for both.
 */
import { type Provider } from '@nestjs/common';
import {
  createHolaVerifier,
  type ChainReader,
  type Clock,
  type HolaVerifier,
  type AsyncSignatureVerifier,
  type ReplayStore,
  type SignatureVerifier,
} from '@passport/core';
import { type AppConfig } from '../platform/config/app-config.js';
import {
  APP_CONFIG,
  ASYNC_SIGNATURE_VERIFIER,
  CHAIN_READER,
  CLOCK,
  REPLAY_STORE,
  SERVER_IDENTITY,
  SIGNATURE_VERIFIER,
} from '../platform/infrastructure/di-tokens.js';
import { type ServerIdentity } from '../platform/infrastructure/server-identity.js';
import { HOLA_VERIFIER } from './hola.di-tokens.js';

export const holaVerifierProvider: Provider = {
  provide: HOLA_VERIFIER,
  inject: [
    APP_CONFIG,
    CHAIN_READER,
    REPLAY_STORE,
    CLOCK,
    SIGNATURE_VERIFIER,
    ASYNC_SIGNATURE_VERIFIER,
    SERVER_IDENTITY,
  ],
  useFactory: (
    config: AppConfig,
    chain: ChainReader,
    replay: ReplayStore,
    clock: Clock,
    verifier: SignatureVerifier,
    threadPoolVerifier: AsyncSignatureVerifier,
    server: ServerIdentity,
  ): HolaVerifier =>
    createHolaVerifier({
      chain,
      replay,
      clock,
      verifier: config.holaVerifyThreadPool ? threadPoolVerifier : verifier,
      serviceHost: config.serviceHost,
      futureSkewMs: config.holaFutureSkewMs,
      maxRecordsPerSender: config.replay.maxPerSender,
      // The server signs a testhola reply for every caller who asks.
      onRequestSigners: new Set([server.tokenId]),
    }),
};
