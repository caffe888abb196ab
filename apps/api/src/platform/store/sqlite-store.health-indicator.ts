/**
 * Health of the SQLite store, probing what requests touch: a write transaction that records a probe
 * replay record and reads it back through the key index (as every verified HOLA line does), looks a
 * random key up in each table, then rolls back, with its latency. `ok: false` when the database cannot
 * answer (closed, unreadable or corrupt pages, its write lock held by another connection for PROBE_LOCK_WAIT_MS, its file deleted or
 * replaced while open: nothing is written then until a restart), as long as the connection has met a
 * damaged page (`SqliteDatabase.damaged`: until a restart, since damage does not mend itself), when the
 * replay store has failed a request in the last minute, or when it is full (new HOLA lines are being
 * refused). The detail is client-safe: the adapter kind, counts and timings, the file's name (never its
 * path) and SQLite's fixed text for a code, never an error's own text.
 */
import { randomBytes } from 'node:crypto';
import { statfs } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type Clock } from '@passport/core';
import { type HealthCheckResult, type HealthIndicator } from '../infrastructure/health-indicator.js';
import { replayHealth } from './replay-health.js';
import {
  LOCK_RETRY_MAX_MS,
  LOCK_RETRY_MIN_MS,
  type SqliteDamage,
  type SqliteDatabase,
  type SqliteReplayStore,
  type SqliteStoreHistory,
} from '@passport/adapters/sqlite';
import { withinLast } from './within-last.js';

/** How long a request-path failure of the replay store keeps health degraded. */
export const STORE_FAILURE_REPORT_MS = 60_000;

/**
 * Free space on the database's volume below which health is degraded: the WAL alone may grow to 80 MB
 * between truncations (sqlite.database.ts), the database grows with its records, and a full volume fails
 * every write (logins, verifies, logouts).
 */
export const LOW_FREE_SPACE_BYTES = 128 * 1024 * 1024;

/** How long health waits for the volume's free space (a hung mount must not hang the check). */
const STATFS_TIMEOUT_MS = 500;

/**
 * How long the probe waits for another connection's write lock before health says it is held: under the
 * health check's own 1.5 s, so that a lock held longer reads "locked", not "timeout" (a probe); above a
 * commit of another instance (milliseconds), so that sharing the file does not make health flap.
 */
export const PROBE_LOCK_WAIT_MS = 1000;

/** The probe's answer when the write lock stayed held for PROBE_LOCK_WAIT_MS. */
const LOCK_HELD = Symbol('lock held');

/** What a write's SQLite code says, for an operator (client-safe: no path, no error text). */
function writeFailureReason(code: string): string {
  if (code === 'SQLITE_FULL') return 'the disk is full';
  if (code.startsWith('SQLITE_IOERR')) return 'an I/O error';
  if (code.startsWith('SQLITE_READONLY')) return 'the database is read-only';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'the database is locked';
  if (code.startsWith('SQLITE_CORRUPT')) return 'the database is corrupt';
  return 'an SQLite error';
}

/**
 * What health says of a damaged file: SQLite's fixed text for the code (its message may name a table),
 * the file's name, and the way out.
 */
function damageProblem(file: string, damage: SqliteDamage): string {
  const text =
    damage.code === 'SQLITE_NOTADB' ? 'file is not a database' : 'database disk image is malformed';
  const name = basename(file);
  return `database file ${name} is damaged (SQLite: ${text}, ${damage.code}, since ${new Date(damage.atMs).toISOString()}): restore it from a backup as docs/storage.md says; sqlite3 ${name} "PRAGMA integrity_check" names the damage`;
}

const ROLLBACK = Symbol('rollback');

export class SqliteStoreHealthIndicator implements HealthIndicator {
  readonly name = 'store';

  constructor(
    private readonly db: SqliteDatabase,
    private readonly replay: SqliteReplayStore,
    private readonly clock: Clock,
    private readonly history?: Pick<SqliteStoreHistory, 'problem' | 'notice'>,
    private readonly lowFreeSpaceBytes = LOW_FREE_SPACE_BYTES,
  ) {}

  async check(): Promise<HealthCheckResult> {
    const started = performance.now();
    const nowMs = this.clock.nowMs();
    let usage: ReturnType<SqliteReplayStore['usage']>;
    try {
      // The probe's transaction is rolled back, so the file is checked on its own.
      this.db.assertFileAttached();
      if ((await this.probe(nowMs)) === LOCK_HELD)
        return {
          ok: false,
          detail: {
            adapter: 'sqlite',
            latencyMs: elapsedMs(started),
            problem: `the database is locked: another connection has held its write lock for ${PROBE_LOCK_WAIT_MS} ms or more (writes wait up to the busy timeout, then fail)`,
          },
        };
      // Inside the guard: a probe served from cached pages passes while the row count reads the file (for
      // a database truncated under a running server, health would say "error", not the problem).
      usage = this.replay.usage();
    } catch (error) {
      this.db.noteDamage(error);
      if (this.db.detached !== undefined)
        return {
          ok: false,
          detail: {
            adapter: 'sqlite',
            latencyMs: elapsedMs(started),
            problem: `database file, its WAL or -shm ${this.db.detached} while open; restart the server`,
          },
        };
      const damage = this.db.damaged;
      return {
        ok: false,
        detail: {
          adapter: 'sqlite',
          latencyMs: elapsedMs(started),
          problem: damage === null ? 'database unavailable' : damageProblem(this.db.file, damage),
        },
      };
    }
    // Kept until a restart (a damaged leaf the probe never reads fails every verify that does).
    const damage = this.db.damaged;
    if (damage !== null)
      return {
        ok: false,
        detail: {
          adapter: 'sqlite',
          latencyMs: elapsedMs(started),
          problem: damageProblem(this.db.file, damage),
        },
      };
    // A new database found in place of the old: recording refused for a while, then a note for a day.
    const lost = this.history?.problem;
    if (lost !== undefined)
      return { ok: false, detail: { adapter: 'sqlite', latencyMs: elapsedMs(started), problem: lost } };
    const writeFailure = this.db.lastWriteFailure;
    // The database's own clock (it stamps the failure with Date.now()).
    if (writeFailure !== null && withinLast(writeFailure.atMs, Date.now(), STORE_FAILURE_REPORT_MS))
      return {
        ok: false,
        detail: {
          adapter: 'sqlite',
          latencyMs: elapsedMs(started),
          problem: `database writes failing: ${writeFailureReason(writeFailure.code)} (${writeFailure.code}, ${new Date(writeFailure.atMs).toISOString()})`,
        },
      };
    const freeBytes = await this.freeBytes();
    if (freeBytes !== null && freeBytes < this.lowFreeSpaceBytes)
      return {
        ok: false,
        detail: {
          adapter: 'sqlite',
          latencyMs: elapsedMs(started),
          problem: `the database's volume has ${Math.floor(freeBytes / 1048576)} MiB free (below ${Math.floor(this.lowFreeSpaceBytes / 1048576)} MiB): writes fail when it is full`,
        },
      };
    const failedAt = this.replay.lastFailureAtMs;
    if (withinLast(failedAt, nowMs, STORE_FAILURE_REPORT_MS)) {
      return {
        ok: false,
        detail: { adapter: 'sqlite', latencyMs: elapsedMs(started), problem: 'replay records unavailable' },
      };
    }
    const replay = replayHealth(usage, nowMs);
    const note = this.history?.notice;
    return {
      ok: replay.ok,
      detail: {
        adapter: 'sqlite',
        latencyMs: elapsedMs(started),
        replay: replay.detail,
        ...(note === undefined ? {} : { note }),
      },
    };
  }

  /**
   * Bytes free to this process on the database's volume, or null when it cannot be told in time. Off the
   * event loop, with a deadline: on a hung mount the check still answers.
   */
  private async freeBytes(): Promise<number | null> {
    if (this.db.file === ':memory:') return null;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), STATFS_TIMEOUT_MS);
      timer.unref();
    });
    try {
      return await Promise.race([
        statfs(dirname(this.db.file)).then(
          (stats) => stats.bavail * stats.bsize,
          () => null,
        ),
        late,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A write rolled back. While another connection holds the write lock it is tried again on a timer (1,
   * 2, 4 … 50 ms apart, the event loop free) for PROBE_LOCK_WAIT_MS, then LOCK_HELD. Not through the
   * writes' queue: a probe that waited there the whole busy timeout would be noted as a failed write,
   * and health would report one for a minute after a lock nobody's request waited for.
   */
  private async probe(nowMs: number): Promise<typeof LOCK_HELD | undefined> {
    const deadline = performance.now() + PROBE_LOCK_WAIT_MS;
    for (let waitMs = LOCK_RETRY_MIN_MS; ; waitMs = Math.min(waitMs * 2, LOCK_RETRY_MAX_MS)) {
      if (this.probeIfLockFree(nowMs)) return undefined;
      if (performance.now() >= deadline) return LOCK_HELD;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }

  /** The probe's write, unless another connection holds the write lock (false then). */
  private probeIfLockFree(nowMs: number): boolean {
    const key = `health|${randomBytes(16).toString('hex')}`;
    try {
      return (
        this.db.immediateIfFree(() => {
          const { lastInsertRowid } = this.db
            .statement('INSERT INTO replay_records (key, first_seen_ms, expires_at_ms) VALUES (?, ?, ?)')
            .run(key, nowMs, nowMs + 1);
          const found = this.db
            .statement('SELECT expires_at_ms FROM replay_records WHERE id = ? AND key = ?')
            .get(lastInsertRowid, key);
          if (!found) throw new Error('probe record not found');
          this.db.statement('SELECT session_id FROM sessions WHERE session_id = ?').get(key);
          this.db.statement('SELECT tokens FROM rate_buckets WHERE key = ?').get(key);
          this.db.rowCount('replay_records');
          throw ROLLBACK;
        }) !== undefined
      );
    } catch (error) {
      if (error !== ROLLBACK) throw error;
      return true;
    }
  }
}

function elapsedMs(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}
