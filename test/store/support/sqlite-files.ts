/** Test helpers that act on SQLite files and connections from outside the stores. */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type SqliteDatabase } from '@passport/adapters/sqlite';

/** Copies the database `from` into `to` page by page (SQLite's backup, as sqlite3's .backup and .restore do). */
export async function copyDatabase(from: string, to: string): Promise<void> {
  const source = new Database(from);
  try {
    await source.backup(to);
  } finally {
    source.close();
  }
}

/**
 * Puts the database `backup` in place of `dir`'s `passport.db`, its WAL and shared memory removed: an
 * older copy restored while the server is stopped.
 */
export async function restoreDatabase(dir: string, backup: string): Promise<void> {
  for (const f of ['passport.db', 'passport.db-wal', 'passport.db-shm'])
    rmSync(join(dir, f), { force: true });
  await copyDatabase(backup, join(dir, 'passport.db'));
}

/**
 * Counts the rows of the replay log `db`'s store reads (its `id > ?` scans) while `counting()` is true;
 * returns the count so far.
 */
export function countLogRowsRead(db: SqliteDatabase, counting: () => boolean = () => true): () => number {
  let rowsRead = 0;
  const statement = db.statement.bind(db);
  (db as unknown as { statement: typeof db.statement }).statement = (sql: string) => {
    const prepared = statement(sql);
    if (!/FROM replay_records WHERE id > \? ORDER BY id/.test(sql)) return prepared;
    return {
      raw: () => ({
        iterate: (...args: unknown[]) => {
          const rows = [...(prepared.raw().iterate(...args) as Iterable<unknown>)];
          if (counting()) rowsRead += rows.length;
          return rows[Symbol.iterator]();
        },
      }),
    } as unknown as ReturnType<typeof statement>;
  };
  return () => rowsRead;
}
