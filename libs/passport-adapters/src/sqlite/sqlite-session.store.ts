/**
 * SessionStore on SQLite (table `sessions`): login sessions survive restarts and are shared by every
 * process using the same database file, so a logout is honoured by all of them.
 *
 * Semantics shared with the memory adapter: a session is open while it is not closed and
 * `expiresAtMs > nowMs`; `sweep(nowMs)` deletes every closed or expired session; `list` is newest first
 * by `createdAtMs` (ties: the later created first) and `total` counts every stored session.
 *
 * Bounded: a background sweep deletes closed and expired sessions; a create at `maxEntries` (default
 * 100 000) first sweeps, then, if still full, throws `SessionCapacityError` and stores nothing (no
 * open session of anyone is evicted); a passport holds at most `maxOpenPerPassport` (default 100)
 * open sessions, a login beyond it closing that passport's own oldest (reason `superseded`).
 *
 * Reads are cached in process, because every JWT request reads its session: the cache is dropped
 * whenever `PRAGMA data_version` shows that another connection committed, and this connection's own
 * closes, sweeps and evictions update it directly.
 *
 * The pragma opens a read transaction (file locks: ~2 µs alone, and under load it was half of the
 * JWT tier's cost), so it runs at most once per turn of the event loop; the turn's other reads share
 * its answer, and the flag is cleared in the turn's check phase (setImmediate). Requests are read in
 * the poll phase, so a request whose bytes arrived after another process committed a logout is always
 * checked against a version read after that commit: a logout is still honoured by the next request
 * everywhere. Reads within one turn only share what they could equally have seen a moment earlier.
 *
 * `PRAGMA data_version` sees only the commits made through this connection's WAL: once that WAL (or its
 * -shm) is deleted or replaced, another process that opens the file anew commits through a new one, and
 * its logouts are never seen here. So a read fails (`SqliteFileDetachedError`: the JWT tier answers
 * 503) once the files are found detached, as every write does; they are looked at no more often than
 * every `ATTACHMENT_CHECK_MS` (three stat calls, ~12 µs measured, so ~0.01 % of one core), and the clock is
 * read once per turn, beside the pragma (~40 ns; a cached read costs one property read more). A read may
 * thus rely on a deleted WAL for up to that long (and the rest of the turn) after the deletion: a logout
 * committed elsewhere through a new WAL is honoured here at most that late.
 */
import { systemClock } from '@passport/core';
import {
  DEFAULT_MAX_OPEN_SESSIONS_PER_PASSPORT,
  positiveCap,
  uncappedRemoval,
  type RemovalHorizon,
} from '@passport/core/ports';
import {
  SESSION_SUPERSEDED,
  SessionCapacityError,
  type SessionPage,
  type SessionRecord,
  type SyncSessionStore,
} from '@passport/core/ports';
import { type SqliteDatabase } from './sqlite.database.js';
import { startPeriodicSweep, type PeriodicSweep } from '../sweep/periodic-sweep.js';
import { DEFAULT_SWEEP_INTERVAL_MS, type SqliteStoreOptions } from './sqlite-store.options.js';

/** Close reason of a session closed because the database lost data since it was created. */
export const SESSION_LOST = 'lost';

export const DEFAULT_SESSION_MAX_ENTRIES = 100_000;
/** The longest a session read relies on files not looked at (see above; ms). */
export const ATTACHMENT_CHECK_MS = 100;
/** Sessions remembered in process (oldest dropped first). */
const READ_CACHE_ENTRIES = 10_000;

interface SessionRow {
  readonly session_id: string;
  readonly token_id: string;
  readonly owner_id: string;
  readonly jti: string;
  readonly created_at_ms: number;
  readonly expires_at_ms: number;
  readonly closed_at_ms: number | null;
  readonly close_reason: string | null;
  readonly federated_from: string | null;
  readonly renewal_count: number;
  readonly last_renewed_at_ms: number | null;
}

const INSERT_COLUMNS =
  'session_id, token_id, owner_id, jti, created_at_ms, expires_at_ms, closed_at_ms, close_reason, federated_from';
const COLUMNS = `${INSERT_COLUMNS}, renewal_count, last_renewed_at_ms`;

export interface SqliteSessionStoreOptions extends SqliteStoreOptions {
  /** Open sessions one passport may hold (default 100). */
  readonly maxOpenPerPassport?: number | undefined;
  /**
   * Caps the time expired sessions are deleted by (default: none, the store clock's reading). A server
   * passes `createRemovalHorizon()`: a sweep while the wall clock is stepped ahead deleted every open
   * session for good, and their tokens stayed refused once the clock came back (a clock-step probe).
   */
  readonly removalHorizon?: RemovalHorizon | undefined;
}

export class SqliteSessionStore implements SyncSessionStore {
  readonly maxEntries: number;
  readonly maxOpenPerPassport: number;
  private readonly sweeper: PeriodicSweep;
  private readonly readCache = new Map<string, SessionRecord>();
  private seenDataVersion = -1;
  private readonly removalBy: RemovalHorizon;
  private versionCheckedThisTurn = false;

  constructor(
    private readonly db: SqliteDatabase,
    options: SqliteSessionStoreOptions = {},
  ) {
    this.maxEntries = positiveCap(options.maxEntries ?? DEFAULT_SESSION_MAX_ENTRIES, 'maxEntries');
    this.maxOpenPerPassport = positiveCap(
      options.maxOpenPerPassport ?? DEFAULT_MAX_OPEN_SESSIONS_PER_PASSPORT,
      'maxOpenPerPassport',
    );
    this.removalBy = options.removalHorizon ?? uncappedRemoval;
    const clock = options.clock ?? systemClock;
    // The background sweep never waits for another connection's write lock: the next one tries.
    this.sweeper = startPeriodicSweep(
      () => this.db.ifLockFree(() => this.sweepSync(clock.nowMs())),
      options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS,
      options.onSweepError,
    );
  }

  /** `createSync` once the write lock is free (`SqliteDatabase.immediateWhenFree`). */
  create(session: SessionRecord): Promise<void> {
    return this.db.immediateWhenFree(() => this.createInTransaction(session));
  }

  /** `create` on the calling stack: inside another transaction on this database it joins it (a savepoint). */
  createSync(session: SessionRecord): void {
    this.db.immediate(() => this.createInTransaction(session));
  }

  /**
   * `create` for a caller that holds a write transaction (or savepoint) of its own on this database and
   * rolls it back if this throws (the login recorder): a refusal then undoes this call's closes with the
   * rest of the caller's work, so no savepoint of its own is needed.
   */
  createInTransaction(session: SessionRecord): void {
    if (!this.db.inTransaction) throw new Error('createInTransaction needs an open write transaction');
    const nowMs = session.createdAtMs;
    // Read once: this transaction holds the write lock, closing a session leaves the row count as it
    // is, and a sweep lowers it by the rows it deleted (the trigger-kept count moves with each).
    let rows = this.db.rowCount('sessions');
    if (rows >= this.maxEntries) rows -= this.sweepSync(nowMs);
    // A passport at its own bound makes room by closing its own oldest (then swept); nobody else's.
    // A refusal below rolls the whole transaction back, closes included.
    if (this.closeOldestOfPassport(session.tokenId, nowMs) > 0 && rows >= this.maxEntries) {
      rows -= this.sweepSync(nowMs);
    }
    // Still full: sessions expired by the wall clock go too, rather than a refusal. The horizon may lag
    // the wall clock for good (a suspended machine), and a store full of expired sessions refused every
    // login (a review).
    if (rows >= this.maxEntries) rows -= this.sweepSync(nowMs, true);
    if (rows >= this.maxEntries) throw new SessionCapacityError(this.maxEntries);
    const inserted = this.db
      .statement(
        `INSERT INTO sessions (${INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_id) DO NOTHING`,
      )
      .run(
        session.sessionId,
        session.tokenId,
        session.ownerId,
        session.jti,
        session.createdAtMs,
        session.expiresAtMs,
        session.closedAtMs,
        session.closeReason,
        session.federatedFrom,
      );
    if (inserted.changes === 0) throw new Error(`session ${session.sessionId} already exists`);
  }

  /** Closes the passport's own oldest open sessions so that one more fits its bound. */
  private closeOldestOfPassport(tokenId: string, nowMs: number): number {
    // Counted first: at its bound a passport holds maxOpenPerPassport open sessions, and reading them all
    // as rows on every login cost more than the count; only the ones to close are read.
    // Both read only the index `sessions_open_by_passport_covering`.
    const openCount = this.db
      .statement(
        'SELECT count(*) FROM sessions WHERE token_id = ? AND closed_at_ms IS NULL AND expires_at_ms > ?',
      )
      .pluck()
      .get(tokenId, nowMs) as number;
    const excess = openCount - this.maxOpenPerPassport + 1;
    if (excess <= 0) return 0;
    const oldest = this.db
      .statement(
        'SELECT session_id FROM sessions WHERE token_id = ? AND closed_at_ms IS NULL AND expires_at_ms > ? ORDER BY created_at_ms, rowid LIMIT ?',
      )
      .pluck()
      .all(tokenId, nowMs, excess) as string[];
    for (const sessionId of oldest) {
      this.db
        .statement(
          'UPDATE sessions SET closed_at_ms = ?, close_reason = ? WHERE session_id = ? AND closed_at_ms IS NULL',
        )
        .run(nowMs, SESSION_SUPERSEDED, sessionId);
      this.readCache.delete(sessionId);
    }
    return oldest.length;
  }

  async recordRenewal(sessionId: string, nowMs: number): Promise<boolean> {
    // A single statement, outside `immediate`; waited for on a timer while the lock is held elsewhere.
    const result = await this.db.writeWhenFree(() =>
      this.db
        .statement(
          'UPDATE sessions SET renewal_count = renewal_count + 1, last_renewed_at_ms = ? WHERE session_id = ? AND closed_at_ms IS NULL AND expires_at_ms > ?',
        )
        .run(nowMs, sessionId, nowMs),
    );
    this.readCache.delete(sessionId);
    return result.changes === 1;
  }

  async get(sessionId: string): Promise<SessionRecord | null> {
    return this.getSync(sessionId);
  }

  /** `get` on the calling stack (the bearer tier reads the session on every request). */
  getSync(sessionId: string): SessionRecord | null {
    this.dropCacheIfOthersCommitted();
    // Found detached since (by a write, or another read): throws.
    if (this.db.detached !== undefined) this.db.assertFileAttached();
    const cached = this.readCache.get(sessionId);
    if (cached) return cached;
    let row: SessionRow | undefined;
    try {
      row = this.db.statement(`SELECT ${COLUMNS} FROM sessions WHERE session_id = ?`).get(sessionId) as
        SessionRow | undefined;
    } catch (error) {
      this.db.noteDamage(error); // a read outside a transaction: health is told of damage here
      throw error;
    }
    if (!row) return null;
    const record = toRecord(row);
    if (this.readCache.size >= READ_CACHE_ENTRIES)
      this.readCache.delete(this.readCache.keys().next().value as string);
    this.readCache.set(sessionId, record);
    return record;
  }

  /**
   * Checks `PRAGMA data_version` once per event-loop turn; drops the read cache when it moved. First, the
   * files (`assertAttachedWithin`: a clock read, and three stat calls every `ATTACHMENT_CHECK_MS`).
   */
  private dropCacheIfOthersCommitted(): void {
    if (this.versionCheckedThisTurn) return;
    this.db.assertAttachedWithin(ATTACHMENT_CHECK_MS);
    const version = this.db.dataVersion();
    if (version !== this.seenDataVersion) {
      this.readCache.clear();
      this.seenDataVersion = version;
    }
    this.versionCheckedThisTurn = true;
    setImmediate(this.endTurn);
  }

  private readonly endTurn = (): void => {
    this.versionCheckedThisTurn = false;
  };

  async close(sessionId: string, reason: string, nowMs: number): Promise<boolean> {
    // A single statement, outside `immediate` (`write` checks the file first: a logout into a file nobody
    // opens again must not be answered as done); waited for on a timer while the lock is held elsewhere.
    const result = await this.db.writeWhenFree(() =>
      this.db
        .statement(
          'UPDATE sessions SET closed_at_ms = ?, close_reason = ? WHERE session_id = ? AND closed_at_ms IS NULL',
        )
        .run(nowMs, reason, sessionId),
    );
    this.readCache.delete(sessionId);
    return result.changes === 1;
  }

  /**
   * Closes (reason `lost`) every open session created before `lostAtMs`: the database lost data then (an
   * older copy restored), and any of them may be one closed since whose logout the copy undid (a probe).
   * The agents log in again, as after a new database. Returns how many it closed.
   */
  async closeCreatedBefore(lostAtMs: number, nowMs: number): Promise<number> {
    const result = await this.db.writeWhenFree(() =>
      this.db
        .statement(
          'UPDATE sessions SET closed_at_ms = ?, close_reason = ? WHERE closed_at_ms IS NULL AND created_at_ms < ?',
        )
        .run(nowMs, SESSION_LOST, lostAtMs),
    );
    this.readCache.clear();
    return result.changes;
  }

  async list(page: { offset: number; limit: number }): Promise<SessionPage> {
    const offset = Math.max(0, Math.floor(page.offset));
    const limit = Math.max(0, Math.floor(page.limit));
    // One read transaction, so that the page and the total describe the same snapshot.
    return this.db.snapshot(() => {
      const rows = this.db
        .statement(`SELECT ${COLUMNS} FROM sessions ORDER BY created_at_ms DESC, rowid DESC LIMIT ? OFFSET ?`)
        .all(limit, offset) as SessionRow[];
      return { items: rows.map(toRecord), total: this.db.rowCount('sessions') };
    });
  }

  async sweep(nowMs: number): Promise<number> {
    return this.sweepSync(nowMs);
  }

  async countOpen(nowMs: number): Promise<number> {
    const row = this.db
      .statement('SELECT count(*) AS n FROM sessions WHERE closed_at_ms IS NULL AND expires_at_ms > ?')
      .get(nowMs) as { n: number };
    return row.n;
  }

  /** Sessions in the table (including closed and expired ones not yet swept). */
  get size(): number {
    return this.db.rowCount('sessions');
  }

  /** Stops the background sweep (the database is closed by its owner). */
  dispose(): void {
    this.sweeper.stop();
  }

  private sweepSync(nowMs: number, byWallClock = false): number {
    this.readCache.clear();
    // Two deletes, each through its own index (sessions_closed, sessions_expiry): one delete of either
    // condition scanned the whole table, ~5 ms at 100 000 sessions, and a login into a full table sweeps.
    // A session both closed and expired goes with the first and is counted once.
    return this.db.immediate(
      () =>
        this.db.statement('DELETE FROM sessions WHERE closed_at_ms IS NOT NULL').run().changes +
        this.db
          .statement('DELETE FROM sessions WHERE expires_at_ms <= ?')
          .run(byWallClock ? nowMs : this.removalBy(nowMs)).changes,
    );
  }
}

function toRecord(row: SessionRow): SessionRecord {
  return Object.freeze({
    sessionId: row.session_id,
    tokenId: row.token_id,
    ownerId: row.owner_id,
    jti: row.jti,
    createdAtMs: row.created_at_ms,
    expiresAtMs: row.expires_at_ms,
    closedAtMs: row.closed_at_ms,
    closeReason: row.close_reason,
    federatedFrom: row.federated_from,
    renewalCount: row.renewal_count,
    lastRenewedAtMs: row.last_renewed_at_ms,
  });
}
