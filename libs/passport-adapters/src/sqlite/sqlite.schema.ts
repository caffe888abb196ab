/**
 * The store database's schema: its migrations (SQL text) and their number. Apart from applying them
 * (sqlite.migrations.ts), so that the published declarations of what the package exports from here
 * (`SCHEMA_VERSION`, `SchemaMigration`) name no better-sqlite3 type: an integrator without
 * `@types/better-sqlite3` type-checks them (a probe: TS7016 with `skipLibCheck: false`).
 */

/**
 * Migrations in order; migration i brings the schema from user_version i to i + 1. Append only: never
 * change what a shipped one leaves (how it gets there may be fixed when the schema it leaves is the
 * same: migration 7 keeps the replay records' ids since 1.9.0).
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE replay_records (
    key            TEXT    NOT NULL UNIQUE,
    first_seen_ms  INTEGER NOT NULL,
    expires_at_ms  INTEGER NOT NULL
  );
  CREATE INDEX replay_records_expiry ON replay_records (expires_at_ms);

  CREATE TABLE sessions (
    session_id      TEXT    NOT NULL PRIMARY KEY,
    token_id        TEXT    NOT NULL,
    owner_id        TEXT    NOT NULL,
    jti             TEXT    NOT NULL,
    created_at_ms   INTEGER NOT NULL,
    expires_at_ms   INTEGER NOT NULL,
    closed_at_ms    INTEGER,
    close_reason    TEXT,
    federated_from  TEXT
  );
  CREATE INDEX sessions_created ON sessions (created_at_ms);
  CREATE INDEX sessions_expiry ON sessions (expires_at_ms);
  CREATE INDEX sessions_closed ON sessions (closed_at_ms) WHERE closed_at_ms IS NOT NULL;

  CREATE TABLE rate_buckets (
    key            TEXT    NOT NULL UNIQUE,
    tokens         REAL    NOT NULL,
    updated_at_ms  INTEGER NOT NULL,
    -- When the bucket is full again: from then on the row means the same as no row (safe to delete).
    full_at_ms     INTEGER NOT NULL
  );
  CREATE INDEX rate_buckets_full ON rate_buckets (full_at_ms);
  CREATE INDEX rate_buckets_updated ON rate_buckets (updated_at_ms);

  CREATE TABLE row_counts (tbl TEXT NOT NULL PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
  INSERT INTO row_counts (tbl, n) VALUES ('replay_records', 0), ('sessions', 0), ('rate_buckets', 0);
  ${['replay_records', 'sessions', 'rate_buckets']
    .map(
      (t) => `
  CREATE TRIGGER ${t}_count_insert AFTER INSERT ON ${t} BEGIN UPDATE row_counts SET n = n + 1 WHERE tbl = '${t}'; END;
  CREATE TRIGGER ${t}_count_delete AFTER DELETE ON ${t} BEGIN UPDATE row_counts SET n = n - 1 WHERE tbl = '${t}'; END;`,
    )
    .join('')}
  `,
  // Sessions outlive one token: renewals are counted; open sessions are counted per passport at login.
  `
  ALTER TABLE sessions ADD COLUMN renewal_count INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE sessions ADD COLUMN last_renewed_at_ms INTEGER;
  CREATE INDEX sessions_open_by_passport ON sessions (token_id, created_at_ms) WHERE closed_at_ms IS NULL;
  `,
  // Replay records charged to an owner (a HOLA line's sender token), with a trigger-kept count per
  // owner so that the per-sender bound costs one keyed read per insert.
  `
  ALTER TABLE replay_records ADD COLUMN owner TEXT;
  CREATE INDEX replay_records_owner_expiry ON replay_records (owner, expires_at_ms) WHERE owner IS NOT NULL;
  CREATE TABLE replay_owner_counts (owner TEXT NOT NULL PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
  CREATE TRIGGER replay_owner_count_insert AFTER INSERT ON replay_records WHEN NEW.owner IS NOT NULL BEGIN
    INSERT INTO replay_owner_counts (owner, n) VALUES (NEW.owner, 1) ON CONFLICT (owner) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER replay_owner_count_delete AFTER DELETE ON replay_records WHEN OLD.owner IS NOT NULL BEGIN
    UPDATE replay_owner_counts SET n = n - 1 WHERE owner = OLD.owner;
    DELETE FROM replay_owner_counts WHERE owner = OLD.owner AND n <= 0;
  END;
  `,
  // A login counts the passport's open sessions (not closed, not expired) and, at its bound, reads the
  // oldest: with the expiry and closed columns in the index both read only the index (the count looked
  // up each session's row for its expiry: ~20 µs at 100 sessions, ~5 µs now). It replaces the old
  // index, so an insert still writes the same number of indexes.
  `
  DROP INDEX sessions_open_by_passport;
  CREATE INDEX sessions_open_by_passport_covering
    ON sessions (token_id, created_at_ms, expires_at_ms, closed_at_ms) WHERE closed_at_ms IS NULL;
  `,
  // No (owner, expiry) index on the replay records: it was one more B-tree written by every insert (one
  // more page in the WAL per commit, two write calls), and it served only an owner at its bound, which
  // now sweeps expired records through the expiry index instead. The per-owner bound still reads the
  // trigger-kept count. (Keying the table by its key, WITHOUT ROWID, was measured too and not kept: the
  // expiry index then orders a second's records by their random keys, and writes more pages.)
  `
  DROP INDEX replay_records_owner_expiry;
  `,
  // The database's identity, made once when it is created: a database found under another identity than
  // the one DATA_DIR remembers (SqliteStoreHistory) is a new one, and every replay record was lost.
  `
  CREATE TABLE IF NOT EXISTS store_meta (name TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
  INSERT OR IGNORE INTO store_meta (name, value) VALUES ('store_id', lower(hex(randomblob(16))));
  `,
  // The replay records become a log: rows appended in id order (AUTOINCREMENT: an id is never given
  // twice, so a reader that has seen every id up to n finds the rest above n), with no index on the key.
  // The key's unique index was the cost of a record on the verify path: each new key lands on a random
  // leaf, so each record wrote one more 4 KiB page to the WAL and later to the file (the store bench's
  // verify-path record: 22.4-23.8 µs of CPU against 14.0-14.3 appended). Exactly-once is decided under
  // the write lock against each connection's index of the log (SqliteReplayStore), which is brought up
  // to date from the ids above the last it saw before every decision. Rolling back to schema 6 restores
  // the unique index first (docs/storage.md "Upgrading and rolling back"). The rows keep their ids, and
  // the log its numbering: upgrading again after such a rollback renumbered the log from 1, below the top
  // the log-top file remembered, and the start took it for a restored older copy (a probe).
  `
  ALTER TABLE replay_records RENAME TO replay_records_keyed;
  CREATE TABLE replay_records (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    key            TEXT    NOT NULL,
    first_seen_ms  INTEGER NOT NULL,
    expires_at_ms  INTEGER NOT NULL,
    owner          TEXT
  );
  INSERT INTO replay_records (id, key, first_seen_ms, expires_at_ms, owner)
    SELECT rowid, key, first_seen_ms, expires_at_ms, owner FROM replay_records_keyed ORDER BY rowid;
  UPDATE sqlite_sequence SET seq = (SELECT seq FROM sqlite_sequence WHERE name = 'replay_records_keyed')
    WHERE name = 'replay_records' AND seq < (SELECT seq FROM sqlite_sequence WHERE name = 'replay_records_keyed');
  INSERT INTO sqlite_sequence (name, seq)
    SELECT 'replay_records', seq FROM sqlite_sequence WHERE name = 'replay_records_keyed'
      AND NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'replay_records');
  DROP TABLE replay_records_keyed;
  CREATE INDEX replay_records_expiry ON replay_records (expires_at_ms);
  UPDATE row_counts SET n = (SELECT count(*) FROM replay_records) WHERE tbl = 'replay_records';
  DELETE FROM replay_owner_counts;
  INSERT INTO replay_owner_counts (owner, n)
    SELECT owner, count(*) FROM replay_records WHERE owner IS NOT NULL GROUP BY owner;
  CREATE TRIGGER replay_records_count_insert AFTER INSERT ON replay_records BEGIN UPDATE row_counts SET n = n + 1 WHERE tbl = 'replay_records'; END;
  CREATE TRIGGER replay_records_count_delete AFTER DELETE ON replay_records BEGIN UPDATE row_counts SET n = n - 1 WHERE tbl = 'replay_records'; END;
  CREATE TRIGGER replay_owner_count_insert AFTER INSERT ON replay_records WHEN NEW.owner IS NOT NULL BEGIN
    INSERT INTO replay_owner_counts (owner, n) VALUES (NEW.owner, 1) ON CONFLICT (owner) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER replay_owner_count_delete AFTER DELETE ON replay_records WHEN OLD.owner IS NOT NULL BEGIN
    UPDATE replay_owner_counts SET n = n - 1 WHERE owner = OLD.owner;
    DELETE FROM replay_owner_counts WHERE owner = OLD.owner AND n <= 0;
  END;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** What `migrate` did: the schema found and the schema left (equal when nothing was to do). */
export interface SchemaMigration {
  readonly from: number;
  readonly to: number;
}
