/**
 * Whether the SQLite database is the one this data directory had before: a new one (the file deleted,
 * truncated to nothing, replaced) holds none of the replay records of the old, so every HOLA line and
 * login challenge used recently would be accepted again (after `truncate -s 0 passport.db` and a
 * restart, 674 of 674 used lines verified again, 86 used login bodies each got a new JWT).
 *
 * How: the database carries a random identity made when it was created (`store_meta.store_id`), and
 * a file beside the database remembers it, named after it (`store-history.passport.db.json` for
 * `passport.db`: a name `rm passport.db*` does not take along; each database of a directory has its
 * own, and one without a file, `:memory:`, has none; up to 1.8.0 the directory had one,
 * `store-history.json`, taken over at the first start). Opening a database whose identity differs from
 * the remembered one is a loss: replay records are refused for `holdMs` (by default the longest a used
 * line or challenge stays acceptable), the loss is reported once, and the file records the new identity and the hold's end, so a process
 * started during the hold (or restarted) holds too, and one started after it does not hold again.
 * A directory without the file (a first start, or a database made before this check) records the
 * database it finds. A file that cannot be read is taken as a loss: refusing for a while is the safe way
 * to be wrong.
 *
 * Running processes report a loss too (`lost`): the replay store notices the log it reads going back
 * under it (an older copy of this very database restored in place: the records made since the copy
 * are gone) or another identity in the file (another database's copy restored in place), holds, and
 * records the loss in the file; the other running processes adopt it from there (`refresh`, each second
 * with the store's background read), as restarts do.
 *
 * An old copy of this very database put back while every process is stopped has the same identity and
 * older records (a probe: 50 of 50 lines used after the copy verified again, and logouts made since were
 * undone). The directory also remembers the highest replay-log id it has seen (`store-log-top.<name>.json`,
 * written every `rememberEveryMs` while it grows, and at close): a start that finds the log ending below
 * it takes that for a loss, as does a WAL lost after a crash. Not seen: a copy made within the last
 * `rememberEveryMs` before a kill -9; both the database and the files removed together (a deliberate
 * reset).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { type SqliteDatabase } from './sqlite.database.js';
import { HoldDeadline } from '@passport/core/ports';

/**
 * The history file's name up to 1.8.0, one for the whole directory (a second database in it was taken for
 * a loss of the first). Now each database has its own (`storeHistoryFileOf`); the first database to start
 * in a directory without its own takes this one over (renamed), so that an upgrade keeps what it knew.
 */
export const STORE_HISTORY_FILE_NAME = 'store-history.json';
/** Beside it up to 1.8.0: the highest replay-log id seen, `{storeId, top}` (now `storeLogTopFileOf`). */
export const STORE_LOG_TOP_FILE_NAME = 'store-log-top.json';

/** A database without a file of its own (`:memory:`, or SQLite's temporary one): nothing to remember. */
const hasNoFile = (dbFile: string): boolean => dbFile === ':memory:' || dbFile === '';

/**
 * The history file of the database at `dbFile`, beside it and named after it (`store-history.passport.db.json`
 * for `passport.db`: a name `rm passport.db*` does not take along), or undefined for a database without a
 * file.
 */
export function storeHistoryFileOf(dbFile: string): string | undefined {
  return hasNoFile(dbFile) ? undefined : join(dirname(dbFile), `store-history.${basename(dbFile)}.json`);
}

/** Beside it: the highest replay-log id seen of that database, `{storeId, top}` (`store-log-top.passport.db.json`). */
export function storeLogTopFileOf(dbFile: string): string | undefined {
  return hasNoFile(dbFile) ? undefined : join(dirname(dbFile), `store-log-top.${basename(dbFile)}.json`);
}

/**
 * Up to 1.8.0 the two files were the directory's (`store-history.json`, `store-log-top.json`): a database
 * without files of its own takes them over, renamed to its own names, so that an upgrade neither finds a
 * loss that is none nor forgets the database it knew (a deleted database, an older copy are noticed across
 * it). They remember the database last started in the directory: one that is not it is a loss, as it was
 * before the upgrade. Taken once: a second database in the directory finds none.
 */
function takeOverDirectoryFiles(historyFile: string, logTopFile: string): void {
  if (existsSync(historyFile)) return;
  const directory = dirname(historyFile);
  for (const [old, own] of [
    [join(directory, STORE_LOG_TOP_FILE_NAME), logTopFile],
    [join(directory, STORE_HISTORY_FILE_NAME), historyFile],
  ] as const) {
    try {
      if (!existsSync(own)) renameSync(old, own);
    } catch (error) {
      // None (a new directory), or taken over by another process just now.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT')
        throw new Error(`cannot rename the store history ${old} to ${own} (${code ?? 'error'})`, {
          cause: error,
        });
    }
  }
}
/** How often a running process writes the log's top down when it grew (10 s). */
export const DEFAULT_LOG_TOP_REMEMBER_MS = 10_000;

/** How long a loss stays in health as a note once recording is allowed again (24 h). */
const NOTICE_MS = 86_400_000;

interface HistoryFile {
  readonly storeId: string;
  /** When replay records may be written again after the last loss (Unix ms), or null. */
  readonly heldUntilMs: number | null;
  /** When the last loss was noticed (Unix ms), or null. */
  readonly lostAtMs: number | null;
  /**
   * A random name of that loss, kept when its times are written back bounded: a process reading the file
   * tells a new loss by it, not by its time (a probe: a restart bounded the time of a loss recorded by a
   * clock 10 min ahead, and a running process took the rewritten file for a second loss and held again).
   * Absent in files written before it (then the time tells).
   */
  readonly lossId?: string;
}

const newLossId = (): string => randomBytes(8).toString('hex');

export interface SqliteStoreHistoryOptions {
  /** How long replay records are refused after a loss (ms; 0: not at all, the loss is still reported). */
  readonly holdMs: number;
  /** Unix ms now (default Date.now). */
  readonly now?: (() => number) | undefined;
  /**
   * Monotonic ms, any origin: how long a hold set here has run, which a step of the wall clock cannot
   * stretch (default performance.now, or `now` when that is given).
   */
  readonly monotonicNowMs?: (() => number) | undefined;
  /**
   * Told once of each loss: found by this open (when, and what the file said, or why it was unreadable),
   * noticed while running (`lost`), or recorded by another process (`refresh`).
   */
  readonly onLoss?: ((lostAtMs: number, why: string) => void) | undefined;
  /**
   * How often the replay log's top is written down while it grows (`rememberLogTop`, started by `check`;
   * default 10 s). It is also written at `check`, at `stop` and when the database closes. 0: only then
   * (a process that runs briefly); a restored copy made since the last write is not noticed.
   */
  readonly rememberLogTopEveryMs?: number | undefined;
}

export class SqliteStoreHistory {
  /** When replay records may be written again, on the wall clock and on monotonic time. */
  private readonly hold: HoldDeadline;
  private lostAt: number | null = null;
  /**
   * `lostAt` less the lead the wall clock had, when this process noticed the loss, over where it read at
   * this process's start (see `lostAtMs`).
   */
  private lostAtEffective: number | null = null;
  private readonly monotonic: () => number;
  /** The wall clock less monotonic time at this process's start: a later reading above it is a lead. */
  private readonly startOffset: number;
  /** The loss last reported to `onLoss` by this process (its time), so that each is reported once. */
  private reportedLostAt: number | null;
  /** The name of the last loss this process knows (HistoryFile.lossId). */
  private lossId: string | undefined;
  /** The file as last looked at (inode, time, size): another process's write changes it. */
  private fileSeen: string | undefined;
  private readonly now: () => number;
  /** The log's top this process last wrote down (or found written), for its own database. */
  private topRemembered = -1;
  private rememberTimer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly db: SqliteDatabase,
    /** Undefined for a database without a file (`:memory:`): no loss to notice, nothing written. */
    private readonly file: string | undefined,
    private readonly options: SqliteStoreHistoryOptions,
    heldUntilMs: number | null,
    lostAt: number | null,
    lossId: string | undefined,
  ) {
    this.now = options.now ?? Date.now;
    this.monotonic = options.monotonicNowMs ?? options.now ?? (() => performance.now());
    this.startOffset = this.now() - this.monotonic();
    // A caller's own clock (tests that move time) is its monotonic time too, unless it gives one.
    this.hold = new HoldDeadline(this.now, options.holdMs, options.monotonicNowMs ?? options.now);
    this.lossId = lossId;
    this.take(heldUntilMs, lostAt);
    // A start reports its own loss (check), and not one it read from the file.
    this.reportedLostAt = this.lostAt;
  }

  /**
   * Takes a hold and its loss's time, bounded as a start reads them from the file: a loss noticed "later
   * than now" was noticed by a clock that was ahead, so it was noticed by now (a year 5138 would keep the
   * note in health for millennia, and 9e15 would make health fail outright); and a hold never lasts
   * longer than this process's hold, counted from the loss and from now (the file's time was written by
   * whichever process noticed the loss, whose clock may have been ahead: a year ahead would mean a year
   * of 503s; and an operator who sets the hold lower, 0, is obeyed at the next start).
   */
  private take(heldUntilMs: number | null, lostAt: number | null): void {
    const now = this.now();
    this.lostAt = lostAt === null ? null : Math.min(lostAt, now);
    // Another process's time (or this one's at an earlier start): taken as it is, capped to now.
    this.lostAtEffective = this.lostAt;
    const bound = Math.max(0, this.options.holdMs);
    this.hold.set(
      heldUntilMs === null ? null : Math.min(heldUntilMs, (this.lostAt ?? heldUntilMs) + bound, now + bound),
    );
  }

  /**
   * Compares `db` with what its directory remembers, records the outcome, and returns the verdict. From
   * here the replay log's top is written down (`rememberLogTop`, every `rememberLogTopEveryMs`, on an
   * unref'd timer) until `stop` or the database's `close`: without it an older copy restored between
   * two starts is not noticed (a probe: the adapters README's wiring, which did not call it).
   */
  static check(db: SqliteDatabase, options: SqliteStoreHistoryOptions): SqliteStoreHistory {
    const everyMs = options.rememberLogTopEveryMs ?? DEFAULT_LOG_TOP_REMEMBER_MS;
    assertInterval(everyMs);
    const history = SqliteStoreHistory.compare(db, options);
    history.rememberLogTop(everyMs);
    db.whenClosing(() => history.stop());
    return history;
  }

  private static compare(db: SqliteDatabase, options: SqliteStoreHistoryOptions): SqliteStoreHistory {
    const now = options.now ?? Date.now;
    const file = storeHistoryFileOf(db.file);
    const topFile = storeLogTopFileOf(db.file);
    if (file === undefined || topFile === undefined)
      return new SqliteStoreHistory(db, undefined, options, null, null, undefined);
    takeOverDirectoryFiles(file, topFile);
    const storeId = db.storeId;
    let remembered: HistoryFile | undefined;
    let unreadable: string | undefined;
    try {
      remembered = parseHistory(readFileSync(file, 'utf8'));
      if (remembered === undefined) unreadable = `${file} is not a store history`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        unreadable = `${file} could not be read (${(error as Error).message})`;
    }
    if (remembered === undefined && unreadable === undefined) {
      writeHistory(file, { storeId, heldUntilMs: null, lostAtMs: null });
      return new SqliteStoreHistory(db, file, options, null, null, undefined);
    }
    if (remembered !== undefined && remembered.storeId === storeId) {
      const history = new SqliteStoreHistory(
        db,
        file,
        options,
        remembered.heldUntilMs,
        remembered.lostAtMs,
        remembered.lossId,
      );
      // The same database, older: its log ends below what this directory saw (an old copy restored while
      // stopped, a WAL lost in a crash).
      // The file first, then the database: read the other way, a process running on this directory could
      // commit and write a higher top in between, and this start would take that for a loss (a review).
      const seen = readLogTop(topFile, storeId);
      const top = seen === null ? null : logTopOf(db);
      if (seen !== null && top !== null && top < seen) {
        history.lost(
          `the database's replay log ends at id ${top}, below id ${seen} this directory saw: an older copy of it, or a lost WAL`,
          now(),
        );
        // The loss is recorded (and held): from here this database's own top counts, lowered this once,
        // else every later start would find the same loss again.
        writeJson(topFile, { storeId, top });
        history.topRemembered = top;
        return history;
      }
      // Times bounded on reading are written back bounded, so that the next start does not bound them
      // again from its own now (a hold restarted at every start); the same loss, under its name.
      if (history.lostAt !== remembered.lostAtMs || history.hold.untilMs !== remembered.heldUntilMs)
        writeHistory(file, {
          storeId,
          heldUntilMs: history.hold.untilMs,
          lostAtMs: history.lostAt,
          ...(remembered.lossId === undefined ? {} : { lossId: remembered.lossId }),
        });
      return history;
    }
    const lostAtMs = now();
    const heldUntilMs = lostAtMs + Math.max(0, options.holdMs);
    const lossId = newLossId();
    writeHistory(file, { storeId, heldUntilMs, lostAtMs, lossId });
    options.onLoss?.(
      lostAtMs,
      unreadable ??
        `the database is not the one ${file} remembers (${remembered?.storeId} before, ${storeId} now)`,
    );
    return new SqliteStoreHistory(db, file, options, heldUntilMs, lostAtMs, lossId);
  }

  /**
   * A loss noticed while running (`why`): the log this process read went back, or another database is in
   * place. `intactAtMs`: when this process last found the database as it had read it. A loss the file
   * records as noticed since then (by another process, which held first), or a hold still running (no
   * process that holds records anything, so nothing more was lost), is this one: its hold is adopted,
   * not started again (several processes noticing one restore would otherwise each stretch it).
   * Otherwise replay records are refused for the hold from now, and the file records the loss with the
   * identity in place, so that other processes (`refresh`) and restarts hold too. Reported once.
   */
  lost(why: string, intactAtMs: number): void {
    this.refresh();
    // A loss recorded "since" the database was last found intact is this one; but one recorded at a time
    // still ahead of this clock says only that the clock was set back since (a review: the last loss, an
    // hour "ahead" after an hour's step back, was taken for a new one, and no hold began). Holding once
    // more is the safe side.
    const recordedSinceIntact =
      this.lostAt !== null && this.lostAt >= intactAtMs && this.lostAt <= this.now();
    if (this.lostAt !== null && (recordedSinceIntact || this.holdRemainingMs > 0)) {
      this.report(`${why}; recorded at ${new Date(this.lostAt).toISOString()} by another process`);
      return;
    }
    const lostAtMs = this.now();
    this.lostAt = lostAtMs;
    this.lostAtEffective = withoutLead(lostAtMs, this.now() - this.monotonic() - this.startOffset);
    this.hold.set(lostAtMs + Math.max(0, this.options.holdMs));
    this.lossId = newLossId();
    let recorded = '';
    if (this.file !== undefined)
      try {
        writeHistory(this.file, {
          storeId: this.db.storeId,
          heldUntilMs: this.hold.untilMs,
          lostAtMs,
          lossId: this.lossId,
        });
        this.fileSeen = fileIdentity(this.file);
      } catch (error) {
        recorded = `; ${(error as Error).message}: other processes and restarts do not hold for it`;
      }
    this.report(`${why}${recorded}`);
  }

  /**
   * Adopts a loss another process recorded in the file since this one last looked (a `stat` when the
   * file has not changed): a process that had not read what was lost cannot notice it itself.
   */
  refresh(): void {
    if (this.file === undefined) return;
    const seen = fileIdentity(this.file);
    if (seen === undefined || seen === this.fileSeen) return;
    this.fileSeen = seen;
    let recorded: HistoryFile | undefined;
    try {
      recorded = parseHistory(readFileSync(this.file, 'utf8'));
    } catch {
      return; // a start reads it again, and takes a file it cannot read for a loss
    }
    if (recorded === undefined || recorded.lostAtMs === null) return;
    // A loss this process knows, its times perhaps written back bounded by a start: not a new one.
    if (
      recorded.lossId !== undefined
        ? recorded.lossId === this.lossId
        : this.lostAt !== null && recorded.lostAtMs <= this.lostAt
    )
      return;
    this.lossId = recorded.lossId;
    this.take(recorded.heldUntilMs, recorded.lostAtMs);
    this.report(`recorded in ${this.file} by another process`);
  }

  private report(why: string): void {
    if (this.lostAt === null || this.reportedLostAt === this.lostAt) return;
    this.reportedLostAt = this.lostAt;
    this.options.onLoss?.(this.lostAt, why);
  }

  /**
   * Writes the replay log's top id down when it grew past what is written (for this database), now and
   * every `everyMs` until `stop`. A write that fails is tried again at the next turn. `check` has
   * started it; a second call writes now and changes nothing else.
   */
  rememberLogTop(everyMs = DEFAULT_LOG_TOP_REMEMBER_MS): void {
    assertInterval(everyMs);
    if (this.file === undefined) return;
    this.writeLogTop();
    if (this.rememberTimer !== undefined || everyMs <= 0) return;
    this.rememberTimer = setInterval(() => this.writeLogTop(), everyMs);
    this.rememberTimer.unref();
  }

  /**
   * Stops the writes of `rememberLogTop`, writing the top once more (a clean stop loses nothing). Done by
   * the database's `close` too; call it first when the database stays open.
   */
  stop(): void {
    clearInterval(this.rememberTimer);
    this.rememberTimer = undefined;
    this.writeLogTop();
  }

  private writeLogTop(): void {
    try {
      const file = storeLogTopFileOf(this.db.file);
      if (file === undefined) return;
      const top = logTopOf(this.db);
      if (top === null || top <= this.topRemembered) return;
      const storeId = this.db.storeId;
      // Another process of this directory may have written a higher one: never lowered.
      const written = readLogTop(file, storeId);
      if (written === null || top > written) writeJson(file, { storeId, top });
      this.topRemembered = Math.max(top, written ?? -1);
    } catch {
      // a closed database, a full disk: the next turn tries again; a start compares what was written
    }
  }

  /**
   * When the last loss this process knows was noticed (Unix ms), or null. A loss this process noticed
   * while its wall clock was ahead of where it read at start (a step ahead) is taken back by that lead:
   * noticed during a step, it read as later than every fresh line once the clock came back, and verify
   * answered them all nonce_replay (a review). A step afterwards changes nothing (a later step back
   * lowered it, and used lines stamped in between verified again: a second review).
   */
  get lostAtMs(): number | null {
    return this.lostAtEffective;
  }

  /** Milliseconds until replay records may be written again (0 when they may now). */
  get holdRemainingMs(): number {
    return this.hold.remainingMs();
  }

  /** Why replay records are refused now (within the hold after a loss), or undefined. */
  get problem(): string | undefined {
    if (this.holdRemainingMs === 0) return undefined;
    return `the SQLite database lost its replay records (noticed at ${new Date(this.lostAt ?? this.now()).toISOString()}): recording refused until ${new Date(this.now() + this.holdRemainingMs).toISOString()}, when lines (in the default 300 s window) and login challenges used before are stale`;
  }

  /** A note for health for a day after a loss (once recording is allowed again), or undefined. */
  get notice(): string | undefined {
    if (this.lostAt === null || this.problem !== undefined || this.now() >= this.lostAt + NOTICE_MS)
      return undefined;
    return `the SQLite database lost its replay records (noticed at ${new Date(this.lostAt).toISOString()}): lines stamped before then are answered nonce_replay, whatever constraints.maxAgeMs asks`;
  }
}

/** The highest id the replay log ever gave (0 before its first record). */
function logTopOf(db: SqliteDatabase): number | null {
  try {
    const top = db
      .statement("SELECT seq FROM sqlite_sequence WHERE name = 'replay_records'")
      .pluck()
      .get() as number | undefined;
    return top ?? 0;
  } catch (error) {
    // A damaged page: noted, so that the start is refused naming the file (the replay store's read
    // finds it too), rather than with SQLite's bare message (a review).
    db.noteDamage(error);
    return null;
  }
}

/** The top written down for `storeId`, or null (none, another database's, unreadable). */
function readLogTop(file: string, storeId: string): number | null {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as { storeId?: unknown; top?: unknown };
    return value?.storeId === storeId && Number.isSafeInteger(value.top) && (value.top as number) >= 0
      ? (value.top as number)
      : null;
  } catch {
    return null;
  }
}

/** The file's inode, modification time and size, or undefined when it cannot be seen. */
function fileIdentity(file: string): string | undefined {
  try {
    const stats = statSync(file, { throwIfNoEntry: false });
    return stats && `${stats.ino}:${stats.mtimeMs}:${stats.size}`;
  } catch {
    return undefined;
  }
}

function parseHistory(text: string): HistoryFile | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { storeId, heldUntilMs, lostAtMs, lossId } = value as Record<string, unknown>;
  const time = (v: unknown) => v === null || (typeof v === 'number' && Number.isFinite(v));
  if (typeof storeId !== 'string' || storeId === '' || !time(heldUntilMs) || !time(lostAtMs))
    return undefined;
  return {
    storeId,
    heldUntilMs: heldUntilMs as number | null,
    lostAtMs: lostAtMs as number | null,
    ...(typeof lossId === 'string' && lossId !== '' ? { lossId } : {}),
  };
}

/**
 * Written whole or not at all (a temporary file renamed over it), mode 0600 like the directory's keys.
 * A file that cannot be written stops the start with one line naming it, leaving no temporary file
 * (not one per attempt, as a directory in its place would).
 */
function writeHistory(file: string, history: HistoryFile): void {
  writeJson(file, history);
}

function writeJson(file: string, value: object): void {
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    writeFileSync(temporary, `${JSON.stringify(value)}\n`, { mode: 0o600 });
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new Error(
      `cannot write the store history ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      {
        cause: error,
      },
    );
  }
}

/** The log top's interval: a finite number of ms, 0 or more (NaN made a timer of 1 ms; a review). */
function assertInterval(everyMs: number): void {
  if (!Number.isFinite(everyMs) || everyMs < 0)
    throw new RangeError(`the log top's interval, ${everyMs} ms, is not a finite number of 0 or more`);
}

/** `atMs` less `leadMs` when the wall clock led by more than a second (the clocks' own jitter), else `atMs`. */
function withoutLead(atMs: number, leadMs: number): number {
  return leadMs > 1000 ? Math.floor(atMs - leadMs) : atMs;
}
