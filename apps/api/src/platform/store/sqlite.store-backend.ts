/**
 * The `STORE=sqlite` family: the three SQLite adapters on one database file `DATA_DIR/passport.db`,
 * sharing one connection (better-sqlite3 is synchronous, so one connection per process is the fastest
 * arrangement; other processes open their own).
 */
import { systemClock } from '@passport/core';
import { type StoreBackend, type StoreBackendOptions } from './store-backend.types.js';
import {
  SqliteDatabase,
  SqliteLoginRecorder,
  SqliteReplayStore,
  SqliteSessionStore,
  SqliteRateLimitStore,
} from '@passport/adapters/sqlite';
import { SqliteStoreHealthIndicator } from './sqlite-store.health-indicator.js';

export function createSqliteStoreBackend(dataDir: string, options: StoreBackendOptions = {}): StoreBackend {
  // The WAL is checkpointed by a worker thread: the copy and its two syncs no longer stop the event loop.
  const db = SqliteDatabase.openInDataDir(dataDir, {
    busyTimeoutMs: options.busyTimeoutMs,
    checkpointInBackground: true,
    onCheckpointError: options.onCheckpointError,
  });
  const withClock = { clock: options.clock };
  const replay = new SqliteReplayStore(db, { ...withClock, ...options.replay });
  const sessions = new SqliteSessionStore(db, { ...withClock, ...options.sessions });
  const rateLimit = new SqliteRateLimitStore(db, { ...withClock, ...options.rateLimit });
  const loginRecorder = new SqliteLoginRecorder(db, replay, sessions);
  return {
    kind: 'sqlite',
    replay,
    sessions,
    rateLimit,
    loginRecorder,
    health: new SqliteStoreHealthIndicator(db, replay, options.clock ?? systemClock),
    close() {
      loginRecorder.dispose();
      replay.dispose();
      sessions.dispose();
      rateLimit.dispose();
      db.close();
    },
  };
}
