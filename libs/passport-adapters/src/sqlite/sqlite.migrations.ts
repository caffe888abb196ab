/**
 * The store database's schema: its migrations, and applying them. Migration i brings the schema from
 * `user_version` i to i + 1; a database newer than this build is refused.
 */
import Database from 'better-sqlite3';
import { MIGRATIONS, type SchemaMigration } from './sqlite.schema.js';

export { SCHEMA_VERSION, type SchemaMigration } from './sqlite.schema.js';

/**
 * Applies the migrations `db` lacks, each in a transaction of its own; refuses a newer schema, naming
 * the ways out (a build that reads it, or the rollback of docs/storage.md: a restored backup brings back
 * what was used and closed since it was taken).
 */
export function migrate(db: Database.Database): SchemaMigration {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(
      `store database schema version ${current} is newer than this build supports (${MIGRATIONS.length}): ` +
        'run a build that supports it, or roll the file back as docs/storage.md "Upgrading and rolling back" says ' +
        '(do not delete it or restore an old backup: used lines and closed sessions would be accepted again)',
    );
  }
  // The first version this connection migrated from: a process starting beside another that applied the
  // migrations first reports nothing done (a probe saw both report, and log, the same migration).
  let from: number | undefined;
  for (let version = current; version < MIGRATIONS.length; version++) {
    // IMMEDIATE: two processes starting together must not both apply the same migration.
    db.transaction(() => {
      if ((db.pragma('user_version', { simple: true }) as number) !== version) return;
      if (version === 0) refuseUnversionedTables(db);
      db.exec(MIGRATIONS[version]);
      db.pragma(`user_version = ${version + 1}`);
      from ??= version;
    }).immediate();
  }
  return { from: from ?? MIGRATIONS.length, to: MIGRATIONS.length };
}

/** The file's own objects (tables, indexes, triggers) as SQLite keeps their definitions, sorted. */
function schemaObjects(db: Database.Database): string[] {
  return (
    db
      .prepare(
        "SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'",
      )
      .pluck()
      .all() as string[]
  ).sort();
}

/**
 * Refuses a file with tables and no schema version, before migration 0 fails on them ("table
 * replay_records already exists", a probe): a database restored from `sqlite3 … .dump`, which does not
 * carry `PRAGMA user_version`. The schema its tables are is found by comparing their definitions with
 * each version's (a dump keeps them word for word), so the message gives the number to set.
 */
function refuseUnversionedTables(db: Database.Database): void {
  const found = schemaObjects(db);
  if (found.length === 0) return;
  const same = (a: string[]) => a.length === found.length && a.every((o, i) => o === found[i]);
  const reference = new Database(':memory:');
  let schema: number | undefined;
  try {
    for (let version = 1; version <= MIGRATIONS.length && schema === undefined; version++) {
      reference.exec(MIGRATIONS[version - 1]);
      if (same(schemaObjects(reference))) schema = version;
    }
  } finally {
    reference.close();
  }
  const why =
    'store database has tables but schema version 0: restored from `sqlite3 … .dump`? A dump does not carry PRAGMA user_version';
  throw new Error(
    schema === undefined
      ? `${why}, and these tables are no schema of this build (1 to ${MIGRATIONS.length}): restore a copy made with \`sqlite3 … ".backup …"\` instead`
      : `${why}; its tables are schema ${schema}'s: set it with \`sqlite3 ${db.name} "PRAGMA user_version = ${schema}"\` and start again`,
  );
}
