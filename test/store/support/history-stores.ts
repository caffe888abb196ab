/**
 * The SQLite stores of a data directory wired as the server wires them for loss detection (a database,
 * its history with the hold, a replay store on it, the log top written at once), on a test's clock: for
 * tests that stop and start "the server" around operations on its files.
 */
import { SqliteDatabase, SqliteReplayStore, SqliteStoreHistory } from '@passport/adapters/sqlite';

/** The API's default SQLITE_LOSS_HOLD_MS. */
export const HOLD_MS = 331_000;

export interface HistoryStores {
  readonly db: SqliteDatabase;
  readonly history: SqliteStoreHistory;
  readonly replay: SqliteReplayStore;
  stop(): void;
}

/** Opens `dir`'s database; the losses it notices are pushed to `losses`. */
export function openHistoryStores(dir: string, now: () => number, losses: string[]): HistoryStores {
  const db = SqliteDatabase.openInDataDir(dir);
  const history = SqliteStoreHistory.check(db, {
    holdMs: HOLD_MS,
    now,
    onLoss: (_at, why) => losses.push(why),
  });
  const replay = new SqliteReplayStore(db, {
    history,
    commitIntervalMs: 0,
    followIntervalMs: 0,
    clock: { nowMs: now },
  });
  history.rememberLogTop(0);
  const stop = () => {
    replay.dispose();
    history.stop();
    db.close();
  };
  return { db, history, replay, stop };
}
