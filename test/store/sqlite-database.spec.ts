/**
 * The SQLite database and the adapters' upkeep: pragmas (WAL, busy_timeout, synchronous=NORMAL, the
 * checkpoint interval, a WAL that stays bounded),
 * migrations by user_version (idempotent, refusing a newer schema), the background sweep timer, the
 * health check on a usable and an unusable database, and validation of the caps.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { jest } from '@jest/globals';
import Database from 'better-sqlite3';
import { FixedClock, sampleSessionRecord } from '@passport/core/testing';
import {
  SCHEMA_VERSION,
  SqliteDatabase,
  SqliteRateLimitStore,
  SqliteReplayStore,
  SqliteFileDetachedError,
  SqliteSessionStore,
  WAL_AUTOCHECKPOINT_PAGES,
} from '@passport/adapters/sqlite';
import {
  PROBE_LOCK_WAIT_MS,
  SqliteStoreHealthIndicator,
  STORE_FAILURE_REPORT_MS,
} from '../../apps/api/src/platform/store/sqlite-store.health-indicator.js';
import { HEALTH_CHECK_TIMEOUT_MS } from '../../apps/api/src/platform/health/health.controller.js';

let dir: string;
let file: string;
const opened: SqliteDatabase[] = [];
function open(options?: { busyTimeoutMs?: number }): SqliteDatabase {
  const db = SqliteDatabase.open(file, options);
  opened.push(db);
  return db;
}

/**
 * 2000 replay records written as an older build wrote them, in random key order: owner a (live until
 * 10 000), owner b (expired at 5000), none (a login challenge). Returns the keys in the order written.
 */
function insertOldReplayRecords(raw: Database.Database): string[] {
  const insert = raw.prepare(
    'INSERT INTO replay_records (key, first_seen_ms, expires_at_ms, owner) VALUES (?, ?, ?, ?)',
  );
  const keys: string[] = [];
  raw.transaction(() => {
    for (let i = 0; i < 2000; i++) {
      const key = `${['aaaaaaaaaaaa', 'bbbbbbbbbbbb', 'login'][i % 3]}|${randomBytes(16).toString('hex')}`;
      keys.push(key);
      insert.run(key, 1000 + i, i % 3 === 1 ? 5000 : 10_000, i % 3 === 2 ? null : key.slice(0, 12));
    }
  })();
  return keys;
}

/** The named (not automatic) indexes of `table` in the file, in name order. */
function indexesOf(check: Database.Database, table: string): string[] {
  return check
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name",
    )
    .pluck()
    .all(table) as string[];
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'passport-sqlite-'));
  file = join(dir, 'nested', 'passport.db');
});
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Starts a process that takes the write lock of `dbFile`; resolves once it holds it. `release()` tells
 * it (through a signal file, written synchronously: the caller then blocks its own thread waiting for
 * the lock, so an async pipe write might never leave) to commit `ms` later.
 */
async function holdWriteLock(
  dbFile: string,
  ms: number,
): Promise<{ release(): Promise<void>; kill(): void }> {
  const signal = `${dbFile}.release`;
  const script = `const fs = require('node:fs'); const D = require('better-sqlite3'); const d = new D(process.argv[1]);
    d.exec('BEGIN IMMEDIATE'); process.stdout.write('locked\\n');
    const poll = setInterval(() => { if (!fs.existsSync(process.argv[2])) return; clearInterval(poll);
      setTimeout(() => { d.exec('COMMIT'); d.close(); }, ${ms}); }, 5);
    setTimeout(() => process.exit(3), 20000).unref();`;
  const child = spawn(process.execPath, ['-e', script, dbFile, signal], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve, reject) =>
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`lock holder exited ${code}`)))),
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', () => reject(new Error('lock holder exited before locking')));
  });
  return {
    release: () => {
      writeFileSync(signal, '');
      return exited;
    },
    kill: () => {
      if (child.exitCode === null) child.kill();
    },
  };
}

async function until(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('SqliteDatabase', () => {
  // Found by a probe: a read-only DATA_DIR stopped the start with "unable to open database file" alone.
  it('a file that cannot be opened is one error naming it (where nothing can be created: /proc)', () => {
    expect(() => SqliteDatabase.open('/proc/passport-test.db')).toThrow(
      /^cannot open the SQLite database \/proc\/passport-test\.db: .*unable to open database file \(is its directory writable\?\)$/,
    );
  });

  // An operators' probe: a directory at the database's path was reported as "is its directory writable?".
  it('a directory at the database path is named as such', () => {
    mkdirSync(file, { recursive: true });
    expect(() => SqliteDatabase.open(file)).toThrow(
      /^cannot open the SQLite database .*: .*unable to open database file \(a directory is at that path\)$/,
    );
  });

  // Found by a probe: an existing database that cannot be prepared (on a read-only mount) stopped the
  // start with "unable to open database file" alone, naming no file. (Here: a file that is no database.)
  it('a file that opens but cannot be prepared is one error naming it', () => {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(
      file,
      'this is not a database, but it is long enough to have a header of sorts\n'.repeat(10),
    );
    expect(() => SqliteDatabase.open(file)).toThrow(
      new RegExp(
        `^cannot prepare the SQLite database ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: .*not a database`,
      ),
    );
  });

  // A review: the WAL's identity was taken at the first write, so one deleted before it went unseen.
  it('a WAL deleted before any write is found by the first write, which is refused', () => {
    const db = open();
    rmSync(`${file}-wal`);
    rmSync(`${file}-shm`, { force: true });
    expect(() => db.immediate(() => db.statement('DELETE FROM rate_buckets').run())).toThrow(
      SqliteFileDetachedError,
    );
    expect(db.detached).toBe('deleted');
  });

  // Savepoints inside a transaction are not checked one by one (a group commit of logins paid three
  // stat calls per login): the outermost transaction is, and a file gone during a savepoint rolls back all.
  it('a WAL deleted during a savepoint is found before the outer commit, which rolls back every savepoint', () => {
    const db = open();
    db.immediate(() =>
      db
        .statement(
          "INSERT INTO rate_buckets (key, tokens, updated_at_ms, full_at_ms) VALUES ('kept', 1, 0, 0)",
        )
        .run(),
    );
    expect(() =>
      db.immediate(() => {
        db.immediate(() =>
          db
            .statement(
              "INSERT INTO rate_buckets (key, tokens, updated_at_ms, full_at_ms) VALUES ('a', 1, 0, 0)",
            )
            .run(),
        );
        rmSync(`${file}-wal`);
        db.immediate(() =>
          db
            .statement(
              "INSERT INTO rate_buckets (key, tokens, updated_at_ms, full_at_ms) VALUES ('b', 1, 0, 0)",
            )
            .run(),
        );
      }),
    ).toThrow(SqliteFileDetachedError);
    expect(db.detached).toBe('deleted');
    expect(db.statement('SELECT key FROM rate_buckets ORDER BY key').pluck().all()).toEqual(['kept']);
  });

  // A probe: with only the -shm deleted, a second process opened the file with a new one while this
  // connection kept writing with the old, and the database came out malformed.
  it('an -shm deleted under the connection is found by the next write, which is refused', () => {
    const db = open();
    rmSync(`${file}-shm`);
    expect(() => db.immediate(() => db.statement('DELETE FROM rate_buckets').run())).toThrow(
      SqliteFileDetachedError,
    );
  });

  // A mutation probe: a logout written as a single statement (outside a transaction) into a WAL deleted
  // under the connection was answered as done, and no test failed: no process opening the file again
  // sees that logout.
  it('a logout or a renewal into a WAL deleted under the connection is refused, not answered as done', async () => {
    const db = open();
    const sessions = new SqliteSessionStore(db, { sweepIntervalMs: 0 });
    const session = sampleSessionRecord(1, { createdAtMs: 1000, expiresAtMs: 60_000 });
    await sessions.create(session);
    rmSync(`${file}-wal`);
    rmSync(`${file}-shm`, { force: true });
    await expect(sessions.close(session.sessionId, 'logout', 2000)).rejects.toBeInstanceOf(
      SqliteFileDetachedError,
    );
    await expect(sessions.recordRenewal(session.sessionId, 2000)).rejects.toBeInstanceOf(
      SqliteFileDetachedError,
    );
    sessions.dispose();
  });

  it('creates the directory and file, in WAL mode with busy_timeout, synchronous=NORMAL and temp_store left to spill to disk', () => {
    open({ busyTimeoutMs: 1234 });
    const raw = new Database(file, { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    } finally {
      raw.close();
    }
    const db = opened[0];
    expect(db.journalMode()).toBe('wal');
    expect(db.schemaVersion()).toBe(SCHEMA_VERSION);
    // Connection-level pragmas, read back through a statement on the same connection.
    expect(db.statement('PRAGMA busy_timeout').get()).toEqual({ timeout: 1234 });
    expect(db.statement('PRAGMA synchronous').get()).toEqual({ synchronous: 1 }); // 1 = NORMAL
    // 0 = the default (a file): statement journals of big sweeps spill to disk instead of growing in RAM.
    expect(db.statement('PRAGMA temp_store').get()).toEqual({ temp_store: 0 });
    expect(db.statement('PRAGMA wal_autocheckpoint').get()).toEqual({
      wal_autocheckpoint: WAL_AUTOCHECKPOINT_PAGES,
    });
  });

  it('keeps the WAL bounded: writes of several times the checkpoint interval leave it at about that size', () => {
    const db = open();
    const replay = new SqliteReplayStore(db, { sweepIntervalMs: 0 });
    const walFrameBytes = 24 + (db.statement('PRAGMA page_size').pluck().get() as number);
    // One transaction per record with a random key: a few WAL frames each, several times the interval.
    for (let i = 0; i < WAL_AUTOCHECKPOINT_PAGES * 2; i++) {
      replay.recordIfAbsentSync(`abcdefghijkl|${randomBytes(16).toString('hex')}`, 1, 1_000_000, {
        owner: `o${i % 100}`,
        maxPerOwner: 1000,
      });
    }
    replay.dispose();
    expect(db.rowCount('replay_records')).toBe(WAL_AUTOCHECKPOINT_PAGES * 2);
    // The WAL file keeps its high-water mark: one interval plus the commit that crossed it.
    expect(statSync(`${file}-wal`).size).toBeLessThanOrEqual(
      (WAL_AUTOCHECKPOINT_PAGES + 100) * walFrameBytes,
    );
  });

  it('reopening an up-to-date file migrates nothing and keeps the data', async () => {
    const first = open();
    await new SqliteReplayStore(first, { sweepIntervalMs: 0 }).recordIfAbsent('k', 1, 100);
    first.close();
    const second = open();
    expect(second.schemaVersion()).toBe(SCHEMA_VERSION);
    expect(second.rowCount('replay_records')).toBe(1);
  });

  it('migrates a version-3 file holding sessions to the covering open-sessions index, keeping the rows and the per-passport bound', async () => {
    // A file as version 3 left it: the open-sessions index on (token_id, created_at_ms) only, and the
    // replay records' (owner, expiry) index that version 5 drops.
    open().close();
    const raw = new Database(file);
    raw.exec(`DROP INDEX sessions_open_by_passport_covering;
      CREATE INDEX sessions_open_by_passport ON sessions (token_id, created_at_ms) WHERE closed_at_ms IS NULL;
      CREATE INDEX replay_records_owner_expiry ON replay_records (owner, expires_at_ms) WHERE owner IS NOT NULL;`);
    raw.pragma('user_version = 3');
    const insert = raw.prepare(
      'INSERT INTO sessions (session_id, token_id, owner_id, jti, created_at_ms, expires_at_ms, closed_at_ms, close_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    // Three open sessions of one passport (one already expired at 5000), one closed, one of another passport.
    insert.run('s1', 'aaaaaaaaaaaa', 'o', 'j1', 1000, 100_000, null, null);
    insert.run('s2', 'aaaaaaaaaaaa', 'o', 'j2', 2000, 4000, null, null);
    insert.run('s3', 'aaaaaaaaaaaa', 'o', 'j3', 3000, 100_000, null, null);
    insert.run('s4', 'aaaaaaaaaaaa', 'o', 'j4', 3500, 100_000, 3600, 'logout');
    insert.run('s5', 'bbbbbbbbbbbb', 'o', 'j5', 4000, 100_000, null, null);
    raw.close();

    const db = open();
    expect(db.schemaVersion()).toBe(SCHEMA_VERSION);
    const check = new Database(file, { readonly: true });
    const indexes = indexesOf(check, 'sessions');
    const plan = check
      .prepare(
        'EXPLAIN QUERY PLAN SELECT count(*) FROM sessions WHERE token_id = ? AND closed_at_ms IS NULL AND expires_at_ms > ?',
      )
      .all('aaaaaaaaaaaa', 5000) as { detail: string }[];
    check.close();
    expect(indexes).toEqual([
      'sessions_closed',
      'sessions_created',
      'sessions_expiry',
      'sessions_open_by_passport_covering',
    ]);
    expect(plan.map((row) => row.detail).join('; ')).toMatch(
      /COVERING INDEX sessions_open_by_passport_covering/,
    );
    expect(db.rowCount('sessions')).toBe(5);

    // Bound 2: s1 and s3 are open at 5000 (s2 has expired), so a login closes the oldest open one, s1.
    const sessions = new SqliteSessionStore(db, { sweepIntervalMs: 0, maxOpenPerPassport: 2 });
    await sessions.create({
      sessionId: 's6',
      tokenId: 'aaaaaaaaaaaa',
      ownerId: 'o',
      jti: 'j6',
      createdAtMs: 5000,
      expiresAtMs: 100_000,
      closedAtMs: null,
      closeReason: null,
      federatedFrom: null,
      renewalCount: 0,
      lastRenewedAtMs: null,
    });
    expect(await sessions.get('s1')).toMatchObject({ closedAtMs: 5000, closeReason: 'superseded' });
    expect(await sessions.get('s3')).toMatchObject({ closedAtMs: null });
    expect(await sessions.get('s5')).toMatchObject({ closedAtMs: null });
    expect(await sessions.countOpen(5000)).toBe(3);
    sessions.dispose();
  });

  it('migrates a version-4 file holding replay records: the (owner, expiry) index is dropped, every record and count is kept, a kept live record is still a replay, and an owner at its bound sweeps expired records', async () => {
    // A file as version 4 left it: the replay records also indexed by (owner, expiry).
    open().close();
    const raw = new Database(file);
    raw.exec(
      'CREATE INDEX replay_records_owner_expiry ON replay_records (owner, expires_at_ms) WHERE owner IS NOT NULL',
    );
    raw.pragma('user_version = 4');
    const keys = insertOldReplayRecords(raw);
    raw.close();

    const db = open();
    expect(db.schemaVersion()).toBe(SCHEMA_VERSION);
    const check = new Database(file, { readonly: true });
    const indexes = indexesOf(check, 'replay_records');
    const rows = check
      .prepare('SELECT key, first_seen_ms, expires_at_ms, owner FROM replay_records ORDER BY first_seen_ms')
      .all() as { key: string; first_seen_ms: number; expires_at_ms: number; owner: string | null }[];
    const ownerCounts = check.prepare('SELECT owner, n FROM replay_owner_counts ORDER BY owner').all();
    check.close();
    expect(indexes).toEqual(['replay_records_expiry']);
    expect(rows).toHaveLength(2000);
    rows.forEach((row, i) =>
      expect(row).toEqual({
        key: keys[i],
        first_seen_ms: 1000 + i,
        expires_at_ms: i % 3 === 1 ? 5000 : 10_000,
        owner: i % 3 === 2 ? null : keys[i].slice(0, 12),
      }),
    );
    expect(db.rowCount('replay_records')).toBe(2000);
    expect(ownerCounts).toEqual([
      { owner: 'aaaaaaaaaaaa', n: 667 },
      { owner: 'bbbbbbbbbbbb', n: 667 },
    ]);

    const replay = new SqliteReplayStore(db, { sweepIntervalMs: 0, expiredGraceMs: 0 });
    // Every kept live record is still a replay; a kept expired one may be recorded again.
    for (let i = 0; i < 2000; i += 3)
      expect(replay.recordIfAbsentSync(keys[i], 6000, 20_000)).toEqual({
        recorded: false,
        firstSeenAtMs: 1000 + i,
      });
    expect(replay.recordIfAbsentSync(keys[1], 6000, 20_000)).toEqual({ recorded: true });
    // The counts bound the owners: a holds 667 live records, so a quota of 667 is full...
    expect(() =>
      replay.recordIfAbsentSync(`aaaaaaaaaaaa|${'0'.repeat(32)}`, 6000, 20_000, {
        owner: 'aaaaaaaaaaaa',
        maxPerOwner: 667,
      }),
    ).toThrow(expect.objectContaining({ code: 'REPLAY_QUOTA_EXCEEDED' }));
    // ...while b's 667 had expired at 5000 (one was just replaced by keys[1]'s new row, which carries no
    // owner): at its bound they are swept, and b records again.
    expect(
      replay.recordIfAbsentSync(`bbbbbbbbbbbb|${'0'.repeat(32)}`, 6000, 20_000, {
        owner: 'bbbbbbbbbbbb',
        maxPerOwner: 666,
      }),
    ).toEqual({ recorded: true });
    expect(db.statement("SELECT n FROM replay_owner_counts WHERE owner = 'bbbbbbbbbbbb'").pluck().get()).toBe(
      1,
    );
    expect(db.statement('SELECT count(*) FROM replay_records').pluck().get()).toBe(
      db.rowCount('replay_records'),
    );
    expect(db.rowCount('replay_records')).toBe(2000 - 666 + 1);
    replay.dispose();
  });

  // A mutation probe: a start that failed while another process held the write lock (its write probe
  // taking the lock for a refusal) passed every test; a second instance starting during the first's
  // group commit would have been refused.
  it('opens while another connection holds the write lock: the write probe is skipped, not failed', () => {
    open().close();
    const holder = open();
    holder.statement('BEGIN IMMEDIATE').run();
    try {
      const db = open({ busyTimeoutMs: 50 });
      expect([db.isOpen, db.schemaVersion()]).toEqual([true, SCHEMA_VERSION]);
    } finally {
      holder.statement('ROLLBACK').run();
    }
  });

  it('refuses a database written by a newer schema', () => {
    open().close();
    const raw = new Database(file);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    // Named, with no hint at permissions (a probe: a lock or a newer schema was said to be a permission problem).
    expect(() => open()).toThrow(
      /^cannot prepare the SQLite database .*: store database schema version \d+ is newer than this build supports \(\d+\): run a build that supports it, or roll the file back as docs\/storage.md "Upgrading and rolling back" says \(do not delete it or restore an old backup: used lines and closed sessions would be accepted again\)$/,
    );
  });

  it('says what it migrated: nothing for a file of this schema, from 0 for a new one', () => {
    expect(open().migration).toEqual({ from: 0, to: SCHEMA_VERSION });
    expect(open().migration).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
  });

  /** The shell command docs/storage.md gives for a rollback from schema `from` (its SQL, unquoted). */
  function documentedRollback(from: number): string {
    const doc = readFileSync(new URL('../../docs/storage.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Upgrading and rolling back'));
    const command = new RegExp(
      `sqlite3 DATA_DIR/passport\\.db "([^"]+PRAGMA user_version = ${from - 1};)"`,
    ).exec(section)?.[1];
    expect(section).toContain(`From\n  schema ${from} to ${from - 1}`);
    return command!;
  }

  // docs/storage.md "Upgrading and rolling back" (a probe: restoring the backup of before an upgrade brought back the
  // sessions logged out and the lines used since). The rollback from schema 7 gives the key its unique
  // index again (schema-6 builds insert with ON CONFLICT (key)), keeping each key's newest row.
  it('a schema-7 file rolled back to 6 as documented keeps its records for a schema-6 build, and upgrading again keeps rows and identity', async () => {
    expect(SCHEMA_VERSION).toBe(7); // a later schema needs its own rollback step in docs/storage.md
    const first = open();
    const store = new SqliteReplayStore(first, { sweepIntervalMs: 0 });
    await store.recordIfAbsent('used-line', 1, 10_000);
    await store.recordIfAbsent('again', 2, 5);
    await store.recordIfAbsent('again', 6, 10_000); // replaces its expired record
    store.dispose();
    // A key whose expired row the sweep has not deleted yet (a process that had forgotten the record).
    first
      .statement('INSERT INTO replay_records (key, first_seen_ms, expires_at_ms) VALUES (?, ?, ?)')
      .run('twice', 3, 4);
    first
      .statement('INSERT INTO replay_records (key, first_seen_ms, expires_at_ms) VALUES (?, ?, ?)')
      .run('twice', 7, 10_000);
    const storeId = first.statement("SELECT value FROM store_meta WHERE name = 'store_id'").pluck().get();
    first.close();
    const raw = new Database(file);
    raw.exec(documentedRollback(7));
    expect(raw.pragma('user_version', { simple: true })).toBe(6);
    // What a schema-6 build runs: its insert finds the used keys through the unique index.
    const schema6Insert = raw.prepare(
      'INSERT INTO replay_records (key, first_seen_ms, expires_at_ms, owner) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO NOTHING',
    );
    expect(
      ['used-line', 'again', 'twice'].map((key) => schema6Insert.run(key, 8, 10_000, null).changes),
    ).toEqual([0, 0, 0]);
    expect(raw.prepare('SELECT key, first_seen_ms FROM replay_records ORDER BY key').raw().all()).toEqual([
      ['again', 6],
      ['twice', 7],
      ['used-line', 1],
    ]);
    expect(raw.prepare("SELECT n FROM row_counts WHERE tbl = 'replay_records'").pluck().get()).toBe(3);
    raw.close();
    const again = open();
    expect(again.migration).toEqual({ from: 6, to: 7 });
    expect(again.statement("SELECT value FROM store_meta WHERE name = 'store_id'").pluck().get()).toBe(
      storeId,
    );
    const upgraded = new SqliteReplayStore(again, { sweepIntervalMs: 0 });
    expect(await upgraded.recordIfAbsent('used-line', 9, 10_000)).toEqual({
      recorded: false,
      firstSeenAtMs: 1,
    });
    expect(await upgraded.recordIfAbsent('twice', 9, 10_000)).toEqual({ recorded: false, firstSeenAtMs: 7 });
    upgraded.dispose();
  });

  it('the rollback from schema 6 to 5 is documented too: a schema-6 file set to 5 upgrades again keeping its rows and identity', () => {
    const doc = readFileSync(new URL('../../docs/storage.md', import.meta.url), 'utf8');
    expect(doc).toContain("From schema 6 to 5: `sqlite3 DATA_DIR/passport.db 'PRAGMA user_version = 5'`");
    const first = open();
    const storeId = first.statement("SELECT value FROM store_meta WHERE name = 'store_id'").pluck().get();
    first.close();
    const raw = new Database(file);
    raw.pragma('user_version = 5');
    raw.close();
    const again = open();
    expect(again.migration).toEqual({ from: 5, to: 7 });
    expect(again.statement("SELECT value FROM store_meta WHERE name = 'store_id'").pluck().get()).toBe(
      storeId,
    );
  });

  it('migrates a schema-6 file (the keyed replay table) to the log: every record, its order, the counts and the triggers are kept, and decisions go on', async () => {
    open().close();
    const raw = new Database(file);
    // The replay table as schema 6 left it: keyed by a unique key, rowid order as recorded.
    raw.exec(`DROP TABLE replay_records;
      CREATE TABLE replay_records (key TEXT NOT NULL UNIQUE, first_seen_ms INTEGER NOT NULL, expires_at_ms INTEGER NOT NULL, owner TEXT);
      CREATE INDEX replay_records_expiry ON replay_records (expires_at_ms);
      UPDATE row_counts SET n = 0 WHERE tbl = 'replay_records';
      DELETE FROM replay_owner_counts;
      CREATE TRIGGER replay_records_count_insert AFTER INSERT ON replay_records BEGIN UPDATE row_counts SET n = n + 1 WHERE tbl = 'replay_records'; END;
      CREATE TRIGGER replay_records_count_delete AFTER DELETE ON replay_records BEGIN UPDATE row_counts SET n = n - 1 WHERE tbl = 'replay_records'; END;
      CREATE TRIGGER replay_owner_count_insert AFTER INSERT ON replay_records WHEN NEW.owner IS NOT NULL BEGIN
        INSERT INTO replay_owner_counts (owner, n) VALUES (NEW.owner, 1) ON CONFLICT (owner) DO UPDATE SET n = n + 1;
      END;
      CREATE TRIGGER replay_owner_count_delete AFTER DELETE ON replay_records WHEN OLD.owner IS NOT NULL BEGIN
        UPDATE replay_owner_counts SET n = n - 1 WHERE owner = OLD.owner;
        DELETE FROM replay_owner_counts WHERE owner = OLD.owner AND n <= 0;
      END;`);
    raw.pragma('user_version = 6');
    const keys = insertOldReplayRecords(raw);
    raw.close();

    const db = open();
    expect(db.migration).toEqual({ from: 6, to: 7 });
    expect(db.statement('SELECT key FROM replay_records ORDER BY id').pluck().all()).toEqual(keys);
    expect(db.statement('SELECT min(id), max(id) FROM replay_records').raw().get()).toEqual([1, 2000]);
    expect(db.rowCount('replay_records')).toBe(2000);
    expect(db.statement('SELECT owner, n FROM replay_owner_counts ORDER BY owner').raw().all()).toEqual([
      ['aaaaaaaaaaaa', 667],
      ['bbbbbbbbbbbb', 667],
    ]);
    expect(
      db
        .statement(
          "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'replay_records' ORDER BY name",
        )
        .pluck()
        .all(),
    ).toEqual([
      'replay_owner_count_delete',
      'replay_owner_count_insert',
      'replay_records_count_delete',
      'replay_records_count_insert',
    ]);
    const check = new Database(file, { readonly: true });
    expect(indexesOf(check, 'replay_records')).toEqual(['replay_records_expiry']);
    check.close();

    const store = new SqliteReplayStore(db, { sweepIntervalMs: 0, expiredGraceMs: 0 });
    const quota = { owner: 'aaaaaaaaaaaa', maxPerOwner: 10_000 };
    expect(await store.recordIfAbsent(keys[0], 6000, 10_000, quota)).toEqual({
      recorded: false,
      firstSeenAtMs: 1000,
    });
    // An expired record (owner b, expired at 5000) is recorded again: its old row goes, the counts hold.
    expect(
      await store.recordIfAbsent(keys[1], 6000, 10_000, { owner: 'bbbbbbbbbbbb', maxPerOwner: 10_000 }),
    ).toEqual({ recorded: true });
    expect(await store.recordIfAbsent('aaaaaaaaaaaa|new', 6000, 10_000, quota)).toEqual({ recorded: true });
    expect(db.rowCount('replay_records')).toBe(2001);
    expect(
      db.statement('SELECT n FROM replay_owner_counts WHERE owner = ?').pluck().get('aaaaaaaaaaaa'),
    ).toBe(668);
    expect(store.sweep(6000)).toBe(666);
    expect(db.rowCount('replay_records')).toBe(1335);
    expect(db.statement('SELECT owner, n FROM replay_owner_counts ORDER BY owner').raw().all()).toEqual([
      ['aaaaaaaaaaaa', 668],
      ['bbbbbbbbbbbb', 1],
    ]);
    store.dispose();
  });

  it('refuses a file that is not a database', () => {
    writeFileSync(
      join(dir, 'junk.db'),
      'this is not a database, just text long enough to have a header......',
    );
    expect(() => SqliteDatabase.open(join(dir, 'junk.db'))).toThrow();
  });

  it('caches prepared statements by SQL text', () => {
    const db = open();
    expect(db.statement('SELECT 1 AS one')).toBe(db.statement('SELECT 1 AS one'));
  });

  it('a write waits for another process holding the write lock (busy_timeout) instead of failing', async () => {
    const patient = new SqliteReplayStore(open({ busyTimeoutMs: 5000 }), { sweepIntervalMs: 0 });
    const impatient = new SqliteReplayStore(open({ busyTimeoutMs: 0 }), { sweepIntervalMs: 0 });
    const holder = await holdWriteLock(file, 200);
    try {
      // Matched by code, not toThrow: better-sqlite3 builds its errors with the SqliteError class of the
      // first Jest realm that loaded it, so `instanceof Error` (which rejects.toThrow needs) can be false.
      await expect(impatient.recordIfAbsent('a', 1, 100)).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
      const released = holder.release();
      // Blocks this thread until the other process commits, then succeeds.
      await expect(patient.recordIfAbsent('b', 1, 100)).resolves.toEqual({ recorded: true });
      await released;
    } finally {
      holder.kill();
    }
  });
});

describe('background sweep', () => {
  it('deletes expired rows on its interval, reading the given clock, and stops on dispose', async () => {
    const db = open();
    const clock = new FixedClock(0);
    const replay = new SqliteReplayStore(db, { sweepIntervalMs: 20, clock });
    const sessions = new SqliteSessionStore(db, { sweepIntervalMs: 20, clock });
    const buckets = new SqliteRateLimitStore(db, { sweepIntervalMs: 20, clock });
    await replay.recordIfAbsent('k', 0, 1000);
    await sessions.create({
      sessionId: 's1',
      tokenId: 'abcdefghijkl',
      ownerId: 'a.near',
      jti: 'j',
      createdAtMs: 0,
      expiresAtMs: 1000,
      closedAtMs: null,
      closeReason: null,
      federatedFrom: null,
    });
    await buckets.take('ip', { capacity: 2, refillPerMs: 0.01 }, 0);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect([replay.size, sessions.size, buckets.size]).toEqual([1, 1, 1]); // nothing expired yet
    clock.set(1000);
    await until(() => sessions.size === 0 && buckets.size === 0);
    // A replay record goes a minute after its expiry (EXPIRED_GRACE_MS).
    expect(replay.size).toBe(1);
    clock.set(61_000);
    await until(() => replay.size === 0);

    replay.dispose();
    sessions.dispose();
    buckets.dispose();
    await replay.recordIfAbsent('k2', 61_000, 62_000);
    clock.set(200_000);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(replay.size).toBe(1); // disposed: no more sweeps
  });

  // A mutation probe: a background sweep that stopped after its first statement (2000 rows) passed every
  // test, leaving a minute's expiries past that until the next interval (or for good, under load).
  it('deletes every expired row in one sweep, 2000 a statement, the event loop turning between statements', async () => {
    const db = open();
    const clock = new FixedClock(0);
    const replay = new SqliteReplayStore(db, { sweepIntervalMs: 1000, clock, expiredGraceMs: 0 });
    db.immediate(() => {
      const insert = db.statement(
        'INSERT INTO replay_records (key, first_seen_ms, expires_at_ms) VALUES (?, ?, ?)',
      );
      for (let i = 0; i < 4500; i++) insert.run(`expired|${i}`, 0, 1000);
    });
    clock.set(2000);
    // The sweep's first statement has run: the rest follow within a few turns, not at the next interval.
    await until(() => replay.size < 4500, 5000);
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(replay.size).toBe(0);
    replay.dispose();
  });
});

describe('SqliteStoreHealthIndicator', () => {
  const healthOf = (db: SqliteDatabase, options: { maxEntries?: number } = {}) => {
    const replay = new SqliteReplayStore(db, { sweepIntervalMs: 0, ...options });
    return { replay, health: new SqliteStoreHealthIndicator(db, replay, new FixedClock(1000)) };
  };

  it('is ok with timing and the replay fill while the database answers, and not ok once it cannot', async () => {
    const db = open();
    const { health } = healthOf(db);
    expect(health.name).toBe('store');
    const ok = await health.check();
    expect(ok).toEqual({
      ok: true,
      detail: {
        adapter: 'sqlite',
        latencyMs: expect.any(Number),
        replay: { records: 0, maxRecords: 1_000_000, refusedFull: 0, refusedQuota: 0 },
      },
    });
    expect(ok.detail?.latencyMs as number).toBeGreaterThanOrEqual(0);
    db.close();
    await expect(health.check()).resolves.toEqual({
      ok: false,
      detail: { adapter: 'sqlite', latencyMs: expect.any(Number), problem: 'database unavailable' },
    });
  });

  // Found by a probe: while another connection held the write lock, the probe waited for it past the
  // health check's own timeout (health said only "timeout"), and once the lock was let go, health said
  // "database writes failing" for a minute though no request's write had failed.
  it('says the database is locked once another connection has held its write lock PROBE_LOCK_WAIT_MS, and is ok again at once when it is let go', async () => {
    const db = open({ busyTimeoutMs: 5000 });
    const { health } = healthOf(db);
    const holder = open();
    holder.statement('BEGIN IMMEDIATE').run();
    try {
      const started = performance.now();
      const locked = await health.check();
      expect(locked).toEqual({
        ok: false,
        detail: {
          adapter: 'sqlite',
          latencyMs: expect.any(Number),
          problem: expect.stringMatching(
            /^the database is locked: another connection has held its write lock/,
          ),
        },
      });
      const tookMs = performance.now() - started;
      expect(tookMs).toBeGreaterThanOrEqual(PROBE_LOCK_WAIT_MS - 1);
      // Not after the 5 s busy timeout. That the probe gives up within the health check's own timeout
      // (1.5 s) is a property of the constants: a wall-clock bound 0.5 s above the 1 s wait would fail
      // whenever a loaded CI machine stalls this process that long.
      expect(tookMs).toBeLessThan(5000);
      expect(PROBE_LOCK_WAIT_MS).toBeLessThan(HEALTH_CHECK_TIMEOUT_MS);
    } finally {
      holder.statement('ROLLBACK').run();
    }
    expect(db.lastWriteFailure).toBeNull();
    expect((await health.check()).ok).toBe(true);
  });

  // Found by a probe: on a full disk every login and verify failed while health said healthy (only the
  // replay store's own failures were reported, and the probe's rolled-back write never reaches the disk).
  it('is not ok for a minute after a write transaction failed, naming a full disk (SQLITE_FULL)', async () => {
    const db = open();
    const { health } = healthOf(db);
    expect((await health.check()).ok).toBe(true);
    const pages = db.statement('PRAGMA page_count').pluck().get() as number;
    db.statement(`PRAGMA max_page_count = ${pages}`).pluck().get(); // this connection's writes: a full disk
    const write = () =>
      db.immediate(() => {
        const insert = db.statement(
          'INSERT INTO replay_records (key, first_seen_ms, expires_at_ms) VALUES (?, ?, ?)',
        );
        for (let i = 0; i < 2000; i++) insert.run(`full|${i}|${'x'.repeat(200)}`, 1000, 2000);
      });
    expect(write).toThrow(expect.objectContaining({ code: 'SQLITE_FULL' }));
    expect(db.lastWriteFailure).toEqual({ atMs: expect.any(Number), code: 'SQLITE_FULL' });
    const result = await health.check();
    expect(result).toEqual({
      ok: false,
      detail: {
        adapter: 'sqlite',
        latencyMs: expect.any(Number),
        problem: expect.stringMatching(/^database writes failing: the disk is full \(SQLITE_FULL, \d{4}-/),
      },
    });
  });

  // A mutation probe: health that kept a failed write for good, not for a minute, passed every test (a
  // disk full once would have kept the instance out of rotation until a restart).
  it('is ok again once the last failed write is a minute old', async () => {
    const db = open();
    const { health } = healthOf(db);
    db.statement('PRAGMA query_only = ON').run(); // every write of this connection now fails
    expect(() =>
      db.immediate(() => db.statement("INSERT INTO store_meta (name, value) VALUES ('x', '')").run()),
    ).toThrow(expect.objectContaining({ code: 'SQLITE_READONLY' }));
    db.statement('PRAGMA query_only = OFF').run();
    expect((await health.check()).ok).toBe(false);
    const failedAtMs = db.lastWriteFailure!.atMs;
    const clock = jest.spyOn(Date, 'now');
    try {
      clock.mockReturnValue(failedAtMs + STORE_FAILURE_REPORT_MS - 1);
      expect((await health.check()).ok).toBe(false);
      clock.mockReturnValue(failedAtMs + STORE_FAILURE_REPORT_MS);
      expect(await health.check()).toMatchObject({ ok: true, detail: { adapter: 'sqlite' } });
    } finally {
      clock.mockRestore();
    }
  });

  // Found by a review: a logout and a renewal are single statements outside a transaction, and their
  // failures did not reach health.
  it('is not ok after a logout or a renewal failed to write (a single statement outside a transaction)', async () => {
    for (const [n, write] of (['close', 'recordRenewal'] as const).entries()) {
      const db = open();
      const { health } = healthOf(db);
      const sessions = new SqliteSessionStore(db, { sweepIntervalMs: 0 });
      const session = sampleSessionRecord(n + 1, {
        createdAtMs: Date.now(),
        expiresAtMs: Date.now() + 60_000,
      });
      await sessions.create(session);
      db.statement('PRAGMA query_only = ON').run(); // every write of this connection now fails
      const failed =
        write === 'close'
          ? sessions.close(session.sessionId, 'logout', Date.now())
          : sessions.recordRenewal(session.sessionId, Date.now());
      await expect(failed).rejects.toMatchObject({ code: 'SQLITE_READONLY' });
      // Writable again (the probe's own write would fail otherwise): the failed write is what is reported.
      db.statement('PRAGMA query_only = OFF').run();
      await expect(health.check()).resolves.toMatchObject({
        ok: false,
        detail: {
          problem: expect.stringMatching(
            /^database writes failing: the database is read-only \(SQLITE_READONLY/,
          ),
        },
      });
      sessions.dispose();
      db.close();
    }
  });

  it("is not ok while the database's volume has less free space than the bound, before any write fails", async () => {
    const db = open();
    const replay = new SqliteReplayStore(db, { sweepIntervalMs: 0 });
    const roomy = new SqliteStoreHealthIndicator(db, replay, new FixedClock(1000), undefined, 1);
    expect((await roomy.check()).ok).toBe(true);
    const cramped = new SqliteStoreHealthIndicator(db, replay, new FixedClock(1000), undefined, 2 ** 60);
    await expect(cramped.check()).resolves.toEqual({
      ok: false,
      detail: {
        adapter: 'sqlite',
        latencyMs: expect.any(Number),
        problem: expect.stringMatching(
          /^the database's volume has \d+ MiB free \(below \d+ MiB\): writes fail when it is full$/,
        ),
      },
    });
  });

  it('its probe leaves nothing behind', async () => {
    const db = open();
    const { replay, health } = healthOf(db);
    await health.check();
    expect(replay.size).toBe(0);
  });

  it('is not ok when the schema is gone (a damaged database), without leaking the error text', async () => {
    const db = open();
    const { health } = healthOf(db);
    const raw = new Database(file);
    raw.exec('DROP TABLE row_counts');
    raw.close();
    const result = await health.check();
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).not.toMatch(/row_counts|no such table/);
  });

  it('is not ok when the pages of the replay records are corrupt, though the row counts still read', async () => {
    const db = open();
    const { replay } = healthOf(db);
    for (let i = 0; i < 3000; i++)
      await replay.recordIfAbsent(`abcdefghijkl|${i.toString(16).padStart(32, '0')}`, 1000, 10_000_000);
    const pages = db
      .statement(
        "SELECT pageno FROM dbstat WHERE name IN ('replay_records', 'sqlite_autoindex_replay_records_1')",
      )
      .pluck()
      .all() as number[];
    replay.dispose();
    db.close();
    const raw = new Database(file);
    raw.pragma('wal_checkpoint(TRUNCATE)');
    const pageSize = raw.pragma('page_size', { simple: true }) as number;
    raw.close();
    const { openSync, writeSync, closeSync } = await import('node:fs');
    const fd = openSync(file, 'r+');
    for (const page of pages) writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, (page - 1) * pageSize);
    closeSync(fd);
    const reopened = SqliteDatabase.open(file);
    try {
      const { health } = healthOf(reopened);
      expect(reopened.rowCount('replay_records')).toBe(3000); // what the old check read
      const result = await health.check();
      // Named as damage (the store's start read met it), with SQLite's fixed text, not a table's name.
      expect(result).toMatchObject({
        ok: false,
        detail: {
          problem: expect.stringMatching(
            /^database file passport\.db is damaged \(SQLite: database disk image is malformed, SQLITE_CORRUPT/,
          ),
        },
      });
    } finally {
      reopened.close();
    }
  });

  it('is not ok while the replay store is full (new lines are being refused)', async () => {
    const db = open();
    const { replay, health } = healthOf(db, { maxEntries: 1 });
    await replay.recordIfAbsent('a', 1000, 5000);
    await expect(replay.recordIfAbsent('b', 1000, 5000)).rejects.toMatchObject({ code: 'REPLAY_STORE_FULL' });
    expect(await health.check()).toMatchObject({
      ok: false,
      detail: { replay: { records: 1, maxRecords: 1, refusedFull: 1, problem: 'replay store full' } },
    });
  });
});

describe('caps', () => {
  it.each([0, -1, 1.5, Number.NaN])('maxEntries %p is refused', (maxEntries) => {
    const db = open();
    expect(() => new SqliteReplayStore(db, { maxEntries, sweepIntervalMs: 0 })).toThrow(RangeError);
    expect(() => new SqliteSessionStore(db, { maxEntries, sweepIntervalMs: 0 })).toThrow(RangeError);
    expect(() => new SqliteRateLimitStore(db, { maxEntries, sweepIntervalMs: 0 })).toThrow(RangeError);
  });

  it('documents the defaults', () => {
    const db = open();
    expect(new SqliteReplayStore(db, { sweepIntervalMs: 0 }).maxEntries).toBe(1_000_000);
    expect(new SqliteSessionStore(db, { sweepIntervalMs: 0 }).maxEntries).toBe(100_000);
    expect(new SqliteRateLimitStore(db, { sweepIntervalMs: 0 }).maxEntries).toBe(100_000);
  });
});
