/**
 * The `STORE=sqlite` family: the three SQLite adapters on one database file `DATA_DIR/passport.db`,
 * sharing one connection (better-sqlite3 is synchronous, so one connection per process is the fastest
 * arrangement; other processes open their own).
 */
import { Logger } from '@nestjs/common';
import { systemClock } from '@passport/core';
import { type StoreBackend, type StoreBackendOptions } from './store-backend.types.js';
import {
  SqliteDatabase,
  SqliteLoginRecorder,
  SqliteReplayStore,
  SqliteSessionStore,
  SqliteRateLimitStore,
  SqliteStoreHistory,
} from '@passport/adapters/sqlite';
import { SqliteStoreHealthIndicator } from './sqlite-store.health-indicator.js';
import { runsOnSystemClock, stepSafeRemoval } from './step-safe-removal.js';

/** The default hold: 300 s + 30 s (a login challenge's future skew) + 1 s, as app-config derives it. */
export const DEFAULT_SQLITE_LOSS_HOLD_MS = 331_000;

export function createSqliteStoreBackend(
  dataDir: string,
  options: StoreBackendOptions = {},
  /** How long replay records are refused after a new database is found in place of the old. */
  lossHoldMs: number = DEFAULT_SQLITE_LOSS_HOLD_MS,
): StoreBackend {
  // The WAL is checkpointed by a worker thread, so the copy and its two syncs do not stop the event loop.
  const db = SqliteDatabase.openInDataDir(dataDir, {
    busyTimeoutMs: options.busyTimeoutMs,
    checkpointInBackground: true,
    onCheckpointError: options.onCheckpointError,
  });
  const { from, to } = db.migration;
  // One-way for the builds before: the operator learns when the rollback of docs/storage.md is needed.
  if (from !== to && from !== 0)
    new Logger('Store').log(
      `migrated ${db.file} from schema ${from} to ${to}: builds of schema ${from} refuse it from now on (docs/storage.md "Upgrading and rolling back")`,
    );
  const clock = options.clock ?? systemClock;
  // Losses found before the session store exists (at this start) are applied to it once it does.
  const ofLoss: { sessions?: SqliteSessionStore; lostBeforeStart?: number } = {};
  const closeSessionsOfLoss = (lostAtMs: number): void => {
    if (ofLoss.sessions === undefined) {
      ofLoss.lostBeforeStart = Math.max(ofLoss.lostBeforeStart ?? lostAtMs, lostAtMs);
      return;
    }
    ofLoss.sessions.closeCreatedBefore(lostAtMs, clock.nowMs()).then(
      (closed) => {
        if (closed > 0)
          new Logger('Store').warn(
            `closed ${closed} session(s) created before the loss (reason lost): their logouts may have been undone; the agents log in again`,
          );
      },
      (error: unknown) =>
        new Logger('Store').error(
          `the sessions created before the loss could not be closed (${(error as Error)?.message ?? String(error)}): a logout made since the copy may be undone`,
        ),
    );
  };
  let history: SqliteStoreHistory;
  try {
    history = SqliteStoreHistory.check(db, {
      holdMs: lossHoldMs,
      now: () => clock.nowMs(),
      // On the system clock a hold also runs on monotonic time, so a step back cannot stretch it.
      monotonicNowMs: runsOnSystemClock(options.clock) ? () => performance.now() : undefined,
      onLoss: (at, why) => {
        new Logger('Store').error(
          `the SQLite database lost its replay records (noticed at ${new Date(at).toISOString()}: ${why}): used HOLA lines and login challenges were forgotten; replay records refused for SQLITE_LOSS_HOLD_MS (${lossHoldMs} ms)`,
        );
        closeSessionsOfLoss(at);
      },
    });
  } catch (error) {
    db.close();
    throw error;
  }
  const withClock = { clock: options.clock };
  const replay = new SqliteReplayStore(db, {
    ...withClock,
    removalHorizon: stepSafeRemoval(options.clock),
    ...options.replay,
    history,
  });
  // The replay log was read whole: a damaged page in it fails every verify and login, so the start is
  // refused with the file and the way out, as for a file it may not write (docs/storage.md "Health").
  const damage = db.damaged;
  if (damage !== null) {
    replay.dispose();
    db.close();
    throw new Error(
      `the SQLite database ${db.file} is damaged (${damage.message}, ${damage.code}; found reading its replay records): restore it from a backup (docs/storage.md "Upgrading and rolling back"); sqlite3 ${db.file} "PRAGMA integrity_check" names the damage`,
    );
  }
  const sessions = new SqliteSessionStore(db, {
    ...withClock,
    removalHorizon: stepSafeRemoval(options.clock),
    ...options.sessions,
  });
  ofLoss.sessions = sessions;
  // Every start closes the sessions of the last loss the directory records, not only a start that
  // finds one: the same old copy restored a second time within the hold was no new loss, and brought
  // back every session the first start had closed (a review); so would a process that died before its
  // close. Sessions created since the loss are kept.
  const lastLoss = Math.max(ofLoss.lostBeforeStart ?? -Infinity, history.lostAtMs ?? -Infinity);
  if (Number.isFinite(lastLoss)) closeSessionsOfLoss(lastLoss);
  // The log's top is written down from `check` on (every 10 s, and at `history.stop()`).
  const rateLimit = new SqliteRateLimitStore(db, { ...withClock, ...options.rateLimit });
  const loginRecorder = new SqliteLoginRecorder(db, replay, sessions);
  return {
    kind: 'sqlite',
    replay,
    sessions,
    rateLimit,
    loginRecorder,
    health: new SqliteStoreHealthIndicator(db, replay, clock, history),
    // Files deleted or replaced under this process concern it alone (another process, or this one
    // restarted, opens the file at its path): out of rotation until a restart (three stat calls a probe).
    fatalProblem() {
      const detached = db.checkAttachment();
      return detached === undefined
        ? undefined
        : `database file, its WAL or -shm ${detached} while open; restart the server`;
    },
    close() {
      loginRecorder.dispose();
      replay.dispose();
      sessions.dispose();
      rateLimit.dispose();
      history.stop();
      db.close();
    },
  };
}
