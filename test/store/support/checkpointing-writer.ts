/**
 * A process that records replay keys into a SQLite file as the API server does (background WAL
 * checkpoint on, group-committed records), until it is killed: run with `node --import tsx`.
 * argv: <file>. After every committed batch it sends the parent `{ keys, checkpoints }`: the keys just
 * recorded (each answered only after its commit) and the background checkpoints completed so far.
 */
import { randomBytes } from 'node:crypto';
import { SqliteDatabase, SqliteReplayStore } from '@passport/adapters/sqlite';

const db = SqliteDatabase.open(process.argv[2], { checkpointInBackground: true });
const replay = new SqliteReplayStore(db, { sweepIntervalMs: 0 });

for (;;) {
  const keys = Array.from(
    { length: 20 },
    () => `abcdefghijkl|${randomBytes(16).toString('hex').toUpperCase()}`,
  );
  const outcomes = await Promise.all(keys.map((key) => replay.recordIfAbsent(key, 1000, 86_400_000)));
  if (outcomes.some((outcome) => !outcome.recorded)) throw new Error('a fresh key was not recorded');
  process.send?.({ keys, checkpoints: db.backgroundCheckpoints });
}
