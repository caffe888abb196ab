/**
 * What every store adapter family provides (its file builds one; `store-backend.ts` chooses one by
 * `STORE`). In a file of its own so that the family files and the chooser do not import each other.
 */
import { type Clock, type ReplayStore } from '@passport/core';
import { type LoginRecorder, type RateLimitStore, type SessionStore } from '@passport/core/ports';
import { type SqliteSessionStoreOptions, type SqliteStoreOptions } from '@passport/adapters/sqlite';
import { type RedisMcpSessionDirectory } from '@passport/adapters/redis';
import { type StoreKind } from '../config/app-config.js';
import { type HealthIndicator } from '../infrastructure/health-indicator.js';

export interface StoreBackend {
  readonly kind: StoreKind;
  readonly replay: ReplayStore;
  readonly sessions: SessionStore;
  readonly rateLimit: RateLimitStore;
  /**
   * The login's used challenge and session written as one step, when the family can (SQLite: one
   * transaction; memory: the record undone when the session fails); absent: the two ports in order.
   */
  readonly loginRecorder?: LoginRecorder;
  /**
   * Per-address buckets of the public routes when the family shares them between instances (Redis);
   * absent: process-local memory.
   */
  readonly publicRateLimit?: RateLimitStore;
  readonly health: HealthIndicator;
  /** The fleet-wide directory of sessioned MCP sessions, when the family is shared by instances (Redis). */
  createMcpSessionDirectory?(options: {
    maxSessions: number;
    maxSessionsPerAddress: number;
    ttlMs: number;
    reclaimIdleMs: number;
  }): RedisMcpSessionDirectory;
  /** A problem no retry fixes (a Redis database index the server refuses), or undefined: not ready while it lasts. */
  fatalProblem?(): string | undefined;
  /** Resolves when the storage can serve (bounded: a Redis that is down does not stop the start). */
  ready?(): Promise<void>;
  /** Stops background sweeps and releases the storage (idempotent; Redis withdraws its clock report first). */
  close(): void | Promise<void>;
}

/** Per-table settings; every field is optional and has a documented default in its adapter. */
export interface StoreBackendOptions {
  /** Clock of the background sweeps (request paths pass their own `nowMs`). */
  readonly clock?: Clock;
  readonly replay?: SqliteStoreOptions;
  readonly sessions?: SqliteSessionStoreOptions;
  readonly rateLimit?: SqliteStoreOptions;
  /** Milliseconds a SQLite connection waits for another's write lock (default 5000). */
  readonly busyTimeoutMs?: number;
  /** Told when the SQLite file's background WAL checkpoint failed (it is retried; the WAL stays bounded). */
  readonly onCheckpointError?: (message: string, repeated?: boolean) => void;
}
