/**
 * The one SQLite database behind the sqlite store adapters (`DATA_DIR/passport.db`).
 *
 * WAL mode lets readers run while one writer commits, so several processes (app instances, the CLI)
 * may open the same file; `busy_timeout` makes a connection wait for the write lock instead of failing
 * with SQLITE_BUSY (on the calling thread: the stores' asynchronous writes wait on timers instead, see
 * `WriteLockQueue`); `synchronous=NORMAL` is durable across process crashes in WAL mode (the WAL is
 * synced only at checkpoints, so a power loss may drop the commits since the last one, up to the WAL's
 * bound below; for replay records, sessions and rate counters that is acceptable).
 * The WAL is checkpointed into the database every `WAL_AUTOCHECKPOINT_PAGES` pages rather than
 * SQLite's 1000: each checkpoint copies the pages written since the last one and syncs both files on
 * the committing (event-loop) thread, and replay records with random keys dirty a page each, so rarer
 * checkpoints copy a page touched several times once and pay the syncs less often. The WAL stays
 * bounded at about that many pages (16 MB). With `checkpointInBackground` (the API server's choice) a
 * worker thread checkpoints instead (`WalCheckpointer`), at the same threshold or within
 * `WAL_CHECKPOINT_MAX_DELAY_MS`: the copy and the WAL's sync leave the event loop (under the verify
 * bench those 15–25 ms stalls, not CPU, cost SQLite about 6 % of its throughput: with
 * `synchronous=OFF`, measured and never shipped, it matched the memory store). This connection then
 * copies what was committed while the worker ran (a PASSIVE checkpoint of its own), so the WAL restarts.
 * That step still syncs the database file, which SQLite does only in a checkpoint that reaches the
 * WAL's end, and so flushes what the worker copied: about 5 ms (up to ~9) on the event loop per
 * checkpoint instead of 15–25. It checkpoints on its own only past `WAL_BACKSTOP_FACTOR` times the
 * threshold (64 MB), which bounds the WAL if the worker falls behind or fails; a commit that finds it
 * past `WAL_HARD_LIMIT_FACTOR` times (80 MB) tries to truncate it (see `holdWalBound`).
 * The schema is migrated forward by `PRAGMA user_version`; each migration runs in its own transaction.
 * Prepared statements are cached per SQL text, because preparing costs more than running.
 */
import { statSync } from 'node:fs';
import { makeDirectorySync } from '../files/make-directory.js';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { migrate } from './sqlite.migrations.js';
import { type SchemaMigration } from './sqlite.schema.js';
import { WalCheckpointer } from './wal-checkpointer.js';
import { fullVolumeHint } from './full-volume-hint.js';
import { WriteLockQueue } from './write-lock.queue.js';
import { closeUnderGuard } from './close-guard.js';

export { SCHEMA_VERSION } from './sqlite.schema.js';

export const DATABASE_FILE_NAME = 'passport.db';

/**
 * Pages the WAL may hold before a commit checkpoints it (SQLite's default is 1000). Measured on the
 * verify path (random keys, owner quota, 200k records held, 20 per transaction): about 74 → 56 µs CPU
 * per record, and event-loop time 238 → 156 µs with the syncs (`npx tsx bench/store.bench.ts`); the price:
 * each checkpoint is four times as large, so the rare slow turn is slower (batch p99 ~50 → ~70 ms on
 * a slow disk).
 */
export const WAL_AUTOCHECKPOINT_PAGES = 4000;

export interface SqliteDatabaseOptions {
  /** Milliseconds a connection waits for another connection's write lock (default 5000). */
  readonly busyTimeoutMs?: number | undefined;
  /**
   * Checkpoint the WAL from a worker thread (`WalCheckpointer`) instead of in the committing call, which
   * blocks for the copy and two syncs (default false: a library opens no threads unasked; the API
   * server turns it on). Ignored for `:memory:`.
   */
  readonly checkpointInBackground?: boolean | undefined;
  /**
   * Told when a background checkpoint failed (the worker retries; the backstop bounds the WAL).
   * `repeated`: the worker's same failure again, with no checkpoint between (log changes, count each).
   */
  readonly onCheckpointError?: ((message: string, repeated?: boolean) => void) | undefined;
  /**
   * With the background checkpointer: WAL pages past which a write transaction's commit truncates the
   * WAL (default `WAL_AUTOCHECKPOINT_PAGES * WAL_HARD_LIMIT_FACTOR`, 80 MB).
   */
  readonly walHardLimitPages?: number | undefined;
}

/** With the background checkpointer, the committing connection still checkpoints at this many times its threshold. */
export const WAL_BACKSTOP_FACTOR = 4;
/**
 * The backstop's PASSIVE checkpoint is skipped while the worker's runs, so a WAL can pass it by what is
 * committed meanwhile; past this many times the threshold (80 MB) a write transaction's commit truncates
 * the WAL (`wal_checkpoint(TRUNCATE)`, see `holdWalBound`). That holds the bound unless another
 * connection's reader keeps the WAL pinned, which no checkpoint can overcome.
 */
export const WAL_HARD_LIMIT_FACTOR = 5;
/** The longest a commit past the hard limit waits for the worker's checkpoint in progress (ms). */
const TRUNCATE_WORKER_WAIT_MS = 100;
/** After a truncation that could not run, the least time before the next try (ms). */
const TRUNCATE_RETRY_MS = 1000;
/** With the background checkpointer, the longest a commit waits to be copied into the synced database file (ms). */
export const WAL_CHECKPOINT_MAX_DELAY_MS = 1000;

/**
 * The database file was deleted or replaced while this connection had it open: what is written now
 * goes to a file nobody will open again, so nothing more is written (every write transaction throws
 * this) until the process restarts and opens the file at its path. Otherwise, after `rm passport.db*`
 * the server goes on answering verified: true and logins into the unlinked file, health says healthy,
 * and after a restart every line verified before verifies again.
 */
export class SqliteFileDetachedError extends Error {
  override readonly name = 'SqliteFileDetachedError';
  constructor(
    readonly file: string,
    readonly reason: 'deleted' | 'replaced',
  ) {
    super(
      `the database file ${file}, its WAL or -shm was ${reason} while open: nothing more is written until a restart`,
    );
  }
}

interface FileIdentity {
  readonly dev: number;
  readonly ino: number;
}

function identityAt(path: string): FileIdentity | undefined {
  const info = statSync(path, { throwIfNoEntry: false });
  return info ? { dev: info.dev, ino: info.ino } : undefined;
}

/** Damage a connection met in its file (`SqliteDatabase.damaged`). */
export interface SqliteDamage {
  /** When it was first met (wall clock ms). */
  readonly atMs: number;
  /** SQLite's code: `SQLITE_CORRUPT` (or an extended one), `SQLITE_NOTADB`. */
  readonly code: string;
  /** SQLite's message (it may name a table: not for clients). */
  readonly message: string;
}

/** Tables whose row counts are kept by triggers in `row_counts` (COUNT(*) would scan the table). */
export type CountedTable = 'replay_records' | 'sessions' | 'rate_buckets';

/**
 * A prepared statement of the store's connection: the part of better-sqlite3's `Statement` the stores
 * use, declared here so that the package's declarations name no better-sqlite3 type (an integrator
 * without `@types/better-sqlite3` type-checks them with `skipLibCheck: false`; a probe: TS7016).
 */
export interface SqliteStatement {
  /** The SQL text it was prepared from. */
  readonly source: string;
  run(...params: unknown[]): { readonly changes: number; readonly lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
  /** Rows as their first column's value (toggled). */
  pluck(toggleState?: boolean): this;
  /** Rows as arrays (toggled). */
  raw(toggleState?: boolean): this;
}

/** An open connection to the store database, with a statement cache and transaction helpers. */
export class SqliteDatabase {
  readonly file: string;
  private readonly db: Database.Database;
  private readonly statements = new Map<string, SqliteStatement>();

  /** With the background checkpointer: the WAL file's size past which a commit truncates it. */
  private readonly walHardLimitBytes: number | undefined;
  /** `performance.now()` before which no truncation is tried again (after one that could not run). */
  private nextTruncationAt = 0;
  /**
   * The files in use (device and inode) by path: the database, its WAL and its -shm (each taken at open,
   * or when first seen; SQLite removes the last two only when the last connection closes). Empty for
   * `:memory:`.
   */
  private readonly inUse = new Map<string, FileIdentity | undefined>();
  /** Set once a file at those paths is no longer the one in use (`SqliteFileDetachedError`). */
  private detachedAs: 'deleted' | 'replaced' | undefined;
  /** Writes waiting for another connection's write lock, on timers (`immediateWhenFree`, `writeWhenFree`). */
  private readonly lockQueue: WriteLockQueue;
  /** The last write transaction SQLite failed: when, and its `SQLITE_*` code. */
  private writeFailure: { readonly atMs: number; readonly code: string } | null = null;
  /** The first sign of a damaged file this connection met (`noteDamage`), kept until it closes. */
  private damage: SqliteDamage | null = null;
  /** Run by `close` before the connection closes (`whenClosing`). */
  private readonly closing: Array<() => void> = [];

  private constructor(
    file: string,
    db: Database.Database,
    /**
     * The schema the file had when opened and the one it has now: a start that migrated it says so,
     * since builds of the older schema refuse the file from then on (docs/storage.md "Upgrading and rolling back").
     */
    readonly migration: SchemaMigration,
    private readonly checkpointer: WalCheckpointer | undefined,
    walHardLimitPages: number,
    private readonly busyTimeoutMs: number,
    private readonly onCheckpointError: ((message: string, repeated?: boolean) => void) | undefined,
  ) {
    this.file = file;
    this.db = db;
    // The WAL and -shm exist once the connection has read in WAL mode (the migration did): taken here,
    // so one deleted before the first write is found too. A deleted -shm lets a second process open
    // the file with a new one while this connection keeps the old, and the database comes out
    // malformed.
    if (file !== ':memory:')
      for (const path of [file, `${file}-wal`, `${file}-shm`]) this.inUse.set(path, identityAt(path));
    if (checkpointer) {
      const frameBytes = 24 + (db.pragma('page_size', { simple: true }) as number);
      this.walHardLimitBytes = walHardLimitPages * frameBytes;
    }
    this.lockQueue = new WriteLockQueue(
      (attempt, lastTry) => this.ifLockFree(attempt, lastTry),
      busyTimeoutMs,
      (refused) => this.noteWriteFailure(refused),
    );
    const runWork = db.transaction((work: () => unknown): unknown => work());
    this.inImmediate = runWork.immediate;
    this.inDeferred = runWork.deferred;
  }

  /** Opens (creating the directory and file if needed) and migrates the database at `file`. */
  static open(file: string, options: SqliteDatabaseOptions = {}): SqliteDatabase {
    if (file !== ':memory:') makeDirectorySync(dirname(file));
    const background = options.checkpointInBackground === true && file !== ':memory:';
    const busyTimeoutMs = Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000));
    let db: Database.Database;
    let migration: SchemaMigration;
    try {
      db = new Database(file);
    } catch (error) {
      // better-sqlite3 says only "unable to open database file" (e.g. for a read-only DATA_DIR, or a
      // directory at the file's path, where asking whether the directory is writable misled a probe).
      const reason = error instanceof Error ? error.message : String(error);
      const hint = isDirectory(file) ? 'a directory is at that path' : 'is its directory writable?';
      throw new Error(`cannot open the SQLite database ${file}: ${reason} (${hint})`, { cause: error });
    }
    try {
      db.pragma(`busy_timeout = ${busyTimeoutMs}`);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES * (background ? WAL_BACKSTOP_FACTOR : 1)}`);
      db.pragma('foreign_keys = ON');
      migration = migrate(db);
      probeWrite(db, busyTimeoutMs);
    } catch (error) {
      db.close();
      // An existing file that cannot be written (a read-only mount) fails here, not at open, with only
      // "unable to open database file": name the file, and hint at permissions only when the
      // error is about them (not for a lock held too long or a newer schema).
      const reason = error instanceof Error ? error.message : String(error);
      const hint = /unable to open|readonly|read-only|permission/i.test(reason)
        ? ' (are it and its directory writable?)'
        : fullVolumeHint(file, reason);
      throw new Error(`cannot prepare the SQLite database ${file}: ${reason}${hint}`, { cause: error });
    }
    // The worker is given the files this connection uses, and checkpoints only while they are the ones
    // at their paths (see `detachment`).
    const owner: { opened?: SqliteDatabase } = {};
    const checkpointer = background
      ? new WalCheckpointer(file, {
          thresholdPages: WAL_AUTOCHECKPOINT_PAGES,
          maxDelayMs: WAL_CHECKPOINT_MAX_DELAY_MS,
          pollMs: 25,
          inUse: [file, `${file}-wal`, `${file}-shm`].map((path) => ({ path, ...identityAt(path) })),
          onError: options.onCheckpointError,
          onCheckpointed: () => owner.opened?.finishCheckpoint(),
          onDetached: () => owner.opened?.checkAttachment(),
        })
      : undefined;
    const walHardLimitPages = options.walHardLimitPages ?? WAL_AUTOCHECKPOINT_PAGES * WAL_HARD_LIMIT_FACTOR;
    const opened = new SqliteDatabase(
      file,
      db,
      migration,
      checkpointer,
      walHardLimitPages,
      busyTimeoutMs,
      options.onCheckpointError,
    );
    owner.opened = opened;
    return opened;
  }

  /** Opens `DATA_DIR/passport.db`. */
  static openInDataDir(dataDir: string, options: SqliteDatabaseOptions = {}): SqliteDatabase {
    return SqliteDatabase.open(join(dataDir, DATABASE_FILE_NAME), options);
  }

  /** The random identity this database was given when it was created (schema version 6). */
  get storeId(): string {
    return this.statement("SELECT value FROM store_meta WHERE name = 'store_id'").pluck().get() as string;
  }

  get isOpen(): boolean {
    return this.db.open;
  }

  /** Whether a transaction is open on this connection (false after SQLite rolled one back on its own). */
  get inTransaction(): boolean {
    return this.db.inTransaction;
  }

  /** Set while immediateIfFree runs: a busy write lock is then no failure. */
  private lockWaitRefused = false;
  /** Set while `ifLockFree` runs its attempt. */
  private inLockAttempt = false;

  /** The cached prepared statement for `sql`. */
  statement(sql: string): SqliteStatement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Runs `work` in a `BEGIN IMMEDIATE` transaction: the write lock is taken up front, so a
   * read-modify-write cannot interleave with another connection's (a deferred transaction would fail
   * with SQLITE_BUSY on upgrade instead of waiting).
   */
  immediate<T>(work: () => T): T {
    // Checked after the work and before the commit: a file gone by then rolls the work back. A savepoint
    // inside another transaction is not checked: the outermost one is, before it commits (a group commit
    // of logins stat-ed the three files once per login, ~9 % of a login's store CPU).
    const outermost = !this.db.inTransaction;
    let result: T;
    try {
      result = this.inImmediate(() => {
        const done = work();
        if (outermost) this.assertFileAttached();
        return done;
      }) as T;
    } catch (error) {
      this.noteWriteFailure(error);
      throw error;
    }
    if (this.walHardLimitBytes !== undefined && !this.db.inTransaction)
      this.holdWalBound(this.walHardLimitBytes);
    return result;
  }

  /**
   * `immediate`, without waiting for the write lock: undefined when another connection holds it, so that
   * an asynchronous caller tries again later with its event loop free meanwhile (`busy_timeout` waits
   * on the calling thread: a process paused in a commit, or an operator's shell inside `BEGIN
   * IMMEDIATE`, stalled every request of every other process for up to the busy timeout on each write
   * attempt). Not a failure for health, unless `lastTry` (the caller has waited long enough): the lock
   * held then throws SQLite's own SQLITE_BUSY, noted for health as a write that waited would be. Inside
   * another transaction it is `immediate` (a savepoint; the lock is held already).
   */
  immediateIfFree<T>(work: () => T, lastTry = false): { readonly result: T } | undefined {
    return this.ifLockFree(() => this.immediate(work), lastTry);
  }

  /**
   * `immediate` once the write lock is free: while another connection holds it the call waits on a
   * timer with the event loop free, behind the writes that waited before it (`WriteLockQueue`), and
   * fails with SQLITE_BUSY once it has waited the busy timeout. Inside another transaction it runs at
   * once, as a savepoint.
   */
  immediateWhenFree<T>(work: () => T): Promise<T> {
    return this.whenLockFree(() => this.immediate(work));
  }

  /** `write` (a single statement outside a transaction) once the write lock is free, as `immediateWhenFree`. */
  writeWhenFree<T>(work: () => T): Promise<T> {
    return this.whenLockFree(() => this.write(work));
  }

  private whenLockFree<T>(attempt: () => T): Promise<T> {
    if (this.db.inTransaction) {
      try {
        return Promise.resolve(attempt());
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.lockQueue.run(attempt);
  }

  /** Writes waiting for another connection's write lock (`immediateWhenFree`, `writeWhenFree`). */
  get writesWaitingForLock(): number {
    return this.lockQueue.size;
  }

  /**
   * Runs `attempt` (statements that take the write lock) with busy_timeout 0: undefined, and not a
   * failure for health, when another connection holds the lock, unless `lastTry`. For background work
   * (a sweep) that may as well run at its next turn, it is the whole wait.
   */
  ifLockFree<T>(attempt: () => T, lastTry = false): { readonly result: T } | undefined {
    // Inside another attempt (a write whose work writes again) the outer one's settings stand: restored
    // here, they would make the rest of the outer work wait on the thread (a review).
    if (this.db.inTransaction || this.inLockAttempt) return { result: attempt() };
    this.statement('PRAGMA busy_timeout = 0').get();
    this.lockWaitRefused = !lastTry;
    this.inLockAttempt = true;
    try {
      return { result: attempt() };
    } catch (error) {
      if (!lastTry && isBusy(error)) return undefined;
      throw error;
    } finally {
      this.inLockAttempt = false;
      this.lockWaitRefused = false;
      this.statement(`PRAGMA busy_timeout = ${this.busyTimeoutMs}`).get();
    }
  }

  /**
   * `immediate`, waiting for another connection's write lock on the calling thread at most `waitMs` (then
   * SQLITE_BUSY): for writes that already waited on timers and are run at a shutdown with what is left
   * of their busy timeout.
   */
  immediateWaiting<T>(work: () => T, waitMs: number): T {
    if (this.db.inTransaction) return this.immediate(work);
    return this.waitingAtMost(waitMs, () => this.immediate(work));
  }

  /** `attempt` (statements that take the write lock) with busy_timeout `waitMs` instead of the database's. */
  private waitingAtMost<T>(waitMs: number, attempt: () => T): T {
    this.statement(`PRAGMA busy_timeout = ${Math.max(0, Math.ceil(waitMs))}`).get();
    try {
      return attempt();
    } finally {
      this.statement(`PRAGMA busy_timeout = ${this.busyTimeoutMs}`).get();
    }
  }

  /** How long a write waits for another connection's write lock (ms): `busy_timeout`. */
  get lockWaitMs(): number {
    return this.busyTimeoutMs;
  }

  /**
   * After a commit: a WAL past the hard limit is checkpointed and truncated here (one stat call, ~1 µs,
   * otherwise). It runs after the commit, so it never throws (the commit's callers are answered as
   * committed) and never waits long: at most `TRUNCATE_WORKER_WAIT_MS` for the worker's checkpoint in
   * progress (SQLite runs one at a time), and not at all for another connection's reader or writer
   * (busy_timeout 0 while it runs: a reader that stays open would otherwise stop every commit for the
   * busy timeout). A truncation that cannot run is retried no sooner than `TRUNCATE_RETRY_MS` later.
   */
  private holdWalBound(limitBytes: number): void {
    if (!this.checkpointer || performance.now() < this.nextTruncationAt) return;
    let truncated = false;
    try {
      const size = statSync(`${this.file}-wal`, { throwIfNoEntry: false })?.size ?? 0;
      if (size <= limitBytes) return;
      // A detached WAL is never copied into the file at the path (`checkAttachment`).
      if (this.checkAttachment() !== undefined) return;
      this.checkpointer.whileHeld(() => {
        this.db.pragma('busy_timeout = 0');
        try {
          truncated = (this.db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>)[0]?.busy === 0;
        } finally {
          // Inside a lock attempt (`ifLockFree`), its setting: 0.
          this.db.pragma(`busy_timeout = ${this.inLockAttempt ? 0 : this.busyTimeoutMs}`);
        }
      }, TRUNCATE_WORKER_WAIT_MS);
      if (!truncated)
        this.onCheckpointError?.('WAL past its hard limit and not truncated (busy); retried in 1 s');
    } catch (error) {
      this.onCheckpointError?.(error instanceof Error ? error.message : String(error));
    }
    if (!truncated) this.nextTruncationAt = performance.now() + TRUNCATE_RETRY_MS;
  }

  /**
   * Throws SqliteFileDetachedError when the file at `file` is not the one this connection opened
   * (deleted, or replaced by another file), or its WAL or -shm is not; three stat calls (~1 µs each) per
   * outermost write transaction, and before each single-statement write (`assertFileAttached` by the stores).
   */
  assertFileAttached(): void {
    const detached = this.checkAttachment();
    if (detached !== undefined) throw new SqliteFileDetachedError(this.file, detached);
  }

  /**
   * `assertFileAttached` for reads that decide access (a session read on every JWT request): the files
   * are looked at no more often than every `maxAgeMs` (the look is three stat calls, 11–16 µs measured
   * on the 2-core dev machine; a clock read, ~40 ns, otherwise), and once found detached every call
   * throws. A read may thus rely on a deleted WAL for up to `maxAgeMs` after the deletion.
   */
  assertAttachedWithin(maxAgeMs: number): void {
    if (this.detachedAs === undefined && performance.now() - this.attachmentCheckedAt < maxAgeMs) return;
    this.assertFileAttached();
  }

  /** `performance.now()` when the files were last looked at (`checkAttachment`). */
  private attachmentCheckedAt = Number.NEGATIVE_INFINITY;

  /**
   * Looks at the files (unless already found detached) and returns why they are not the ones in use, or
   * undefined. Once detached, the WAL this connection holds is never checkpointed again (its frames
   * would overwrite, in the file at the path, the pages another process wrote since through a new WAL:
   * a probe saw that file reported damaged, and commits lost): the background worker is stopped (its
   * connection closes while this one is open, so its close copies nothing) and the auto-checkpoint
   * is turned off; `close` then closes this connection without a checkpoint.
   */
  checkAttachment(): 'deleted' | 'replaced' | undefined {
    // A closed connection's WAL is gone by design; its statements fail on their own.
    if (this.inUse.size === 0 || !this.db.open) return undefined;
    if (this.detachedAs === undefined) {
      this.attachmentCheckedAt = performance.now();
      this.detachedAs = this.detachment();
      if (this.detachedAs !== undefined) {
        this.checkpointer?.stop();
        this.db.pragma('wal_autocheckpoint = 0');
      }
    }
    return this.detachedAs;
  }

  /**
   * `deleted` or `replaced` when the database file, its WAL or its -shm (each once seen) is not the one
   * in use: writes to a deleted WAL are lost at the next crash (`rm passport.db-wal` under load, then
   * kill -9, and 650 lines verified after it verified again).
   */
  private detachment(): 'deleted' | 'replaced' | undefined {
    for (const [path, inUse] of this.inUse) {
      const now = identityAt(path);
      if (inUse === undefined) this.inUse.set(path, now);
      else if (now === undefined) return 'deleted';
      else if (now.ino !== inUse.ino || now.dev !== inUse.dev) return 'replaced';
    }
    return undefined;
  }

  /** Why the file is no longer the one opened (`deleted`, `replaced`), once a write has found out; else undefined. */
  get detached(): 'deleted' | 'replaced' | undefined {
    return this.detachedAs;
  }

  /**
   * Runs a single-statement write outside a transaction (a logout, a renewal): the file is checked first
   * (a write into a file nobody opens again must not be answered as done), and a failure is noted for
   * health as in `immediate`.
   */
  write<T>(work: () => T): T {
    this.assertFileAttached();
    try {
      return work();
    } catch (error) {
      this.noteWriteFailure(error);
      throw error;
    }
  }

  /**
   * Remembered for health: a full disk fails every login and verify, and health would say healthy if
   * only the replay store's own failures were reported.
   */
  private noteWriteFailure(error: unknown): void {
    if (this.lockWaitRefused && isBusy(error)) return; // immediateIfFree's caller tries again
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && code.startsWith('SQLITE_'))
      this.writeFailure = { atMs: Date.now(), code };
    this.noteDamage(error);
  }

  /**
   * Remembers `error` if it says the file is damaged (SQLITE_CORRUPT…, SQLITE_NOTADB), for as long as
   * this connection is open: a damaged page does not mend itself, and every request that reads it fails
   * (a probe: health said a failure for one minute after each verify, and nothing before the first).
   * Writes and snapshots note their own; a store notes the reads it makes outside them.
   */
  noteDamage(error: unknown): void {
    if (this.damage !== null) return;
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code !== 'string' || !isDamage(code)) return;
    // Not `instanceof Error`: an error of another realm (a test runner's sandbox) is one too.
    const text = (error as { message?: unknown }).message;
    const message = typeof text === 'string' ? text : String(error);
    this.damage = { atMs: Date.now(), code, message };
  }

  /** The first damage this connection met (`noteDamage`; wall clock ms, code, SQLite's message), or null. */
  get damaged(): SqliteDamage | null {
    return this.damage;
  }

  /** The last write transaction SQLite failed (when, wall clock ms, and its `SQLITE_*` code), or null. */
  get lastWriteFailure(): { readonly atMs: number; readonly code: string } | null {
    return this.writeFailure;
  }

  /** Runs read-only `work` in one deferred transaction: every read sees the same snapshot. */
  snapshot<T>(work: () => T): T {
    try {
      return this.inDeferred(work) as T;
    } catch (error) {
      this.noteDamage(error);
      throw error;
    }
  }

  // One transaction function per kind, built once: better-sqlite3's `transaction(fn)` builds four
  // wrappers per call (a few % of a login's CPU). Inside another transaction they run as a savepoint.
  private readonly inImmediate: (work: () => unknown) => unknown;
  private readonly inDeferred: (work: () => unknown) => unknown;

  /** Rows in `table`, kept by triggers (O(1)). */
  rowCount(table: CountedTable): number {
    const row = this.statement('SELECT n FROM row_counts WHERE tbl = ?').get(table) as
      { n: number } | undefined;
    return row?.n ?? 0;
  }

  /**
   * `PRAGMA data_version`: changes whenever another connection (another process) has committed to
   * the database since this connection last asked; this connection's own commits leave it unchanged.
   */
  dataVersion(): number {
    return this.statement('PRAGMA data_version').pluck().get() as number;
  }

  /** `PRAGMA user_version`, i.e. the number of migrations applied. */
  schemaVersion(): number {
    return this.db.pragma('user_version', { simple: true }) as number;
  }

  /** `PRAGMA journal_mode` (expected `wal`). */
  journalMode(): string {
    return String(this.db.pragma('journal_mode', { simple: true }));
  }

  /** Checkpoints the background worker has completed (undefined without one). */
  get backgroundCheckpoints(): number | undefined {
    return this.checkpointer?.checkpoints;
  }

  /**
   * Runs `work` when `close` is called, before the connection closes and after the writes waiting for the
   * lock are decided (what `SqliteStoreHistory` writes down at a clean stop). An error it throws is
   * ignored: the connection closes all the same.
   */
  whenClosing(work: () => void): void {
    this.closing.push(work);
  }

  /**
   * Closes the connection. A detached one (its WAL or -shm no longer the files at their paths) is closed
   * without the checkpoint SQLite makes when the last connection of a process closes and no other
   * process has the file open: that checkpoint would copy the detached WAL into the file at the path,
   * over what other processes committed since (a probe: the file damaged, or their commits undone), and
   * delete the WAL and -shm at the paths. See `closeUnderGuard`.
   */
  close(): void {
    if (!this.db.open) return;
    // What waits for the lock is written first, waiting on this thread what is left of its busy timeout.
    this.lockQueue.drain((attempt, waitMs) => this.waitingAtMost(waitMs, attempt));
    for (const work of this.closing.splice(0)) {
      try {
        work();
      } catch {
        // the connection closes all the same
      }
    }
    const detached = this.checkAttachment();
    // The worker's connection closes first (this one still open, so its close copies nothing), and this
    // one is the last and removes the WAL as before.
    this.checkpointer?.stop();
    this.statements.clear();
    // A database file deleted or replaced is no worry: SQLite checkpoints at close only into a file
    // still at its path (SQLITE_FCNTL_HAS_MOVED).
    const fileMoved = detached !== undefined && this.fileMoved();
    if (detached === undefined || fileMoved) this.db.close();
    else closeUnderGuard(this.file, this.db, this.onCheckpointError);
  }

  /** Whether the database file at the path is not the one in use (deleted or replaced). */
  private fileMoved(): boolean {
    const inUse = this.inUse.get(this.file);
    const now = identityAt(this.file);
    return inUse === undefined || now === undefined || now.ino !== inUse.ino || now.dev !== inUse.dev;
  }

  /**
   * After the worker's checkpoint: copies what was committed while it ran, so the WAL is wholly copied
   * and restarts at the next commit (see WalCheckpointer). Runs between event-loop callbacks, never
   * inside a transaction of this connection. A PASSIVE checkpoint waits for nothing: another one in
   * progress (another process's) makes this one a no-op. Not into a file whose WAL is detached.
   */
  private finishCheckpoint(): void {
    if (!this.db.open || this.db.inTransaction) return;
    if (this.checkAttachment() !== undefined) return;
    try {
      this.db.pragma('wal_checkpoint(PASSIVE)');
    } catch (error) {
      this.onCheckpointError?.(error instanceof Error ? error.message : String(error));
    }
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * A write, rolled back: a file this process may not write (its mode, its owner) opens and reads, and
 * when it is in WAL mode already with no migration due nothing above writes, so the start went on and
 * every write then failed (an operators' probe: a database left read-only with its WAL after a crash
 * started, degraded, and logged a failed checkpoint twice a second). Another connection holding the
 * write lock is no answer about this one's rights: the probe is then skipped.
 */
function probeWrite(db: Database.Database, busyTimeoutMs: number): void {
  db.pragma('busy_timeout = 0');
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (error) {
    if (isBusy(error)) return;
    throw error;
  } finally {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  }
  try {
    db.prepare("INSERT OR REPLACE INTO store_meta (name, value) VALUES ('write_probe', '')").run();
  } finally {
    db.exec('ROLLBACK');
  }
}

/** Whether an `SQLITE_*` code says the file itself is damaged (not a lock, a full disk, an I/O error). */
function isDamage(code: string): boolean {
  return code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB';
}

/** Whether `error` is SQLite's answer that another connection holds the lock (`SQLITE_BUSY…`). */
function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}
