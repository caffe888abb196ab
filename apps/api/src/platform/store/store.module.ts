/**
 * Provides the store ports (exported through the platform module): `REPLAY_STORE`, `SESSION_STORE`,
 * `RATE_LIMIT_STORE` and `STORE_HEALTH_INDICATOR`, all from one adapter family chosen by `STORE`
 * (`sqlite`, the default: `DATA_DIR/passport.db`; `memory`: one process, lost on restart). Closing the
 * app stops the background sweeps and closes the database. `PUBLIC_RATE_LIMIT_STORE` (per-address
 * buckets) is shared in Redis with `STORE=redis` (in-process buckets while Redis is down) and
 * process-local memory otherwise.
 */
import { Inject, Logger, Module, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { sequentialLoginRecorder, type Clock, type ReplayStore } from '@passport/core';
import { LoginRecordFailure, type LoginRecorder, type SessionStore } from '@passport/core/ports';
import { MemoryRateLimitStore } from '@passport/core/memory';
import { type AppConfig } from '../config/app-config.js';
import {
  APP_CONFIG,
  CLOCK,
  LOGIN_RECORDER,
  MCP_FLEET_SESSIONS,
  PUBLIC_RATE_LIMIT_STORE,
  RATE_LIMIT_STORE,
  REPLAY_STORE,
  SESSION_STORE,
  STORE_HEALTH_INDICATOR,
} from '../infrastructure/di-tokens.js';
import { OperatorMetrics } from '../metrics/operator-metrics.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { LifecycleModule } from '../lifecycle/lifecycle.module.js';
import { Readiness } from '../lifecycle/readiness.js';
import { createStoreBackend, type StoreBackend } from './store-backend.js';
import { countingStoreErrors, isPolicyRefusal, type StoreErrorSink } from './store-error.counter.js';
import { DETACHED_CLOSE_PROBLEM } from '@passport/adapters/sqlite';

/** Failures go to the operators' metrics (and are rethrown). */
const storeErrorSink =
  (metrics: OperatorMetrics): StoreErrorSink =>
  (store, operation) =>
    metrics.recordStoreError(store, operation);

function countingLoginFailures(recorder: LoginRecorder, sink: StoreErrorSink): LoginRecorder {
  return {
    recordLogin: (challenge, session) =>
      recorder.recordLogin(challenge, session).catch((error: unknown) => {
        if (error instanceof LoginRecordFailure && !isPolicyRefusal(error.cause)) {
          if (error.part === 'challenge') sink('replay', 'recordIfAbsent');
          else sink('sessions', 'create');
        }
        throw error;
      }),
  };
}

/** The chosen adapter family (internal to this module; others inject the port tokens). */
export const STORE_BACKEND = Symbol('STORE_BACKEND');

@Module({
  imports: [MetricsModule, LifecycleModule],
  providers: [
    {
      provide: STORE_BACKEND,
      useFactory: (config: AppConfig, clock: Clock | undefined, metrics: OperatorMetrics): StoreBackend =>
        createStoreBackend(config, {
          clock,
          onCheckpointError: (message, repeated) => {
            if (message.startsWith(DETACHED_CLOSE_PROBLEM)) {
              new Logger('Store').error(message);
              return;
            }
            metrics.recordStoreError('database', 'checkpoint');
            // Each failure is counted; the log says when one starts or changes (the worker backs off).
            if (repeated !== true)
              new Logger('Store').warn(
                `background WAL checkpoint failed (retried, less often while it keeps failing; the WAL stays bounded): ${message}`,
              );
          },
          replay: { maxEntries: config.replay.maxRecords },
          sessions: {
            maxEntries: config.sessions.maxEntries,
            maxOpenPerPassport: config.sessions.maxOpenPerPassport,
          },
        }),
      inject: [APP_CONFIG, { token: CLOCK, optional: true }, OperatorMetrics],
    },
    // Each port counts its failures for the operators' metrics (passport_store_errors_total).
    {
      provide: REPLAY_STORE,
      useFactory: (b: StoreBackend, m: OperatorMetrics) =>
        countingStoreErrors(b.replay, 'replay', storeErrorSink(m)),
      inject: [STORE_BACKEND, OperatorMetrics],
    },
    {
      provide: SESSION_STORE,
      useFactory: (b: StoreBackend, m: OperatorMetrics) =>
        countingStoreErrors(b.sessions, 'sessions', storeErrorSink(m)),
      inject: [STORE_BACKEND, OperatorMetrics],
    },
    {
      provide: RATE_LIMIT_STORE,
      useFactory: (b: StoreBackend, m: OperatorMetrics) =>
        countingStoreErrors(b.rateLimit, 'rate_limit', storeErrorSink(m)),
      inject: [STORE_BACKEND, OperatorMetrics],
    },
    {
      // The family's combined write, its failures counted like the ports' (by the part that failed);
      // without one, the two counted ports in order.
      provide: LOGIN_RECORDER,
      useFactory: (
        b: StoreBackend,
        replay: ReplayStore,
        sessions: SessionStore,
        m: OperatorMetrics,
      ): LoginRecorder =>
        b.loginRecorder
          ? countingLoginFailures(b.loginRecorder, storeErrorSink(m))
          : sequentialLoginRecorder(replay, sessions),
      inject: [STORE_BACKEND, REPLAY_STORE, SESSION_STORE, OperatorMetrics],
    },
    { provide: STORE_HEALTH_INDICATOR, useFactory: (b: StoreBackend) => b.health, inject: [STORE_BACKEND] },
    {
      provide: PUBLIC_RATE_LIMIT_STORE,
      useFactory: (b: StoreBackend) => b.publicRateLimit ?? new MemoryRateLimitStore({ maxKeys: 100_000 }),
      inject: [STORE_BACKEND],
    },
    {
      provide: MCP_FLEET_SESSIONS,
      useFactory: (b: StoreBackend, config: AppConfig) =>
        b.createMcpSessionDirectory?.({
          maxSessions: config.mcpMaxSessions,
          maxSessionsPerAddress: config.mcpMaxSessionsPerAddress,
          ttlMs: config.mcpSessionTtlMs,
          reclaimIdleMs: config.mcpSessionReclaimIdleMs,
        }) ?? null,
      inject: [STORE_BACKEND, APP_CONFIG],
    },
  ],
  exports: [
    REPLAY_STORE,
    SESSION_STORE,
    LOGIN_RECORDER,
    RATE_LIMIT_STORE,
    PUBLIC_RATE_LIMIT_STORE,
    STORE_HEALTH_INDICATOR,
    MCP_FLEET_SESSIONS,
  ],
})
export class StoreModule implements OnModuleInit, OnModuleDestroy {
  constructor(
    @Inject(STORE_BACKEND) private readonly backend: StoreBackend,
    private readonly readiness: Readiness,
  ) {}

  async onModuleInit(): Promise<void> {
    this.readiness.addFatalCheck(() => this.backend.fatalProblem?.());
    await this.backend.ready?.();
  }

  async onModuleDestroy(): Promise<void> {
    await this.backend.close();
  }
}
