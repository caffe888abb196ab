/**
 * @module ports/replay-store.port
 * Single-use records: HOLA nonces (`<tokenId>|<NONCE>`) and used login challenges
 * (`login|<identifier>|<timestamp>`, `login|accountid|<account>|<timestamp>` for an account named by 12
 * letters: `loginChallengeKey`). The check and the record are one atomic step, on one
 * instance or many (Redis `SET NX PX`, SQLite `INSERT OR IGNORE`, a Map in memory).
 *
 * Bounded without giving up protection: a store never evicts a live record to make room (a record
 * leaves only when it expires). A store that cannot take a new record refuses it by throwing a
 * `PassportError`, so the caller fails closed:
 * - `REPLAY_STORE_FULL` when it holds its maximum of live records;
 * - `REPLAY_QUOTA_EXCEEDED` when the record's owner already holds `maxPerOwner` live records
 *   (one sender cannot fill the store for everybody).
 * Any other error means the store is unavailable. A store that knows when it will record again (a
 * deliberate pause, such as the hold after Redis lost records) throws a `RecordingPausedError`, and the
 * caller's 503 carries that time as `retryAfterSeconds` (and the HTTP `Retry-After`).
 */
import { crossCopyCheck } from '../errors/cross-copy.js';

export type RecordOutcome =
  | { readonly recorded: true }
  | {
      readonly recorded: false;
      /** Unix ms when the key was first recorded. */ readonly firstSeenAtMs: number;
    };

/** Whom a record is charged to, and how many live records that owner may hold. */
export interface RecordQuota {
  /** The owner, e.g. the sender token id of a HOLA line. */
  readonly owner: string;
  /** Most live records `owner` may hold; a new record beyond it is refused (`REPLAY_QUOTA_EXCEEDED`). */
  readonly maxPerOwner: number;
}

export interface ReplayStore {
  /**
   * Records `key` unless a live record exists. A record lives until `expiresAtMs`; after that the key
   * may be recorded again. Must be atomic: of N concurrent calls with one key exactly one is `recorded`.
   * A live key is reported (`recorded: false`) even when the store is full or the owner at its quota.
   *
   * `storeShare` (default 1) is how much of the store this record may fill: it is refused as
   * `REPLAY_STORE_FULL` once the store holds `storeCap(maxEntries, storeShare)` records. Below 1 it keeps
   * room for other records (subagent lines, which anyone can make, may fill half); above 1 it lets the
   * record use a reserve the others never reach (login challenges, so that a store full of lines does not
   * stop every login).
   */
  recordIfAbsent(
    key: string,
    nowMs: number,
    expiresAtMs: number,
    quota?: RecordQuota,
    storeShare?: number,
  ): Promise<RecordOutcome>;
  /**
   * When this store last found that it had lost records (Unix ms, the store's clock), or null (or the
   * method absent) when it knows of no loss. Records made before then may be gone, so a HOLA line stamped
   * before then (give or take the future skew) may have been used: verify reports it as a replay, not as
   * a line seen for the first time. The hold after a loss waits out the default 300 s window; this covers
   * the longer windows a verify may ask (`constraints.maxAgeMs`, up to 24 h). A store shared by processes
   * whose clocks differ (Redis) answers the loss as the furthest-ahead of them read it, on this process's
   * clock: what they accepted before it was stamped up to then.
   */
  lostRecordsAtMs?(): number | null;
}

/**
 * The number of records at which a record of `storeShare` is refused: `maxEntries × storeShare`, rounded
 * toward the cap's side of the share (down below 1, up above it, so a reserve is at least one record),
 * at least 1; a share that is not a positive number counts as 1.
 */
export function storeCap(maxEntries: number, storeShare: number = 1): number {
  const share = Number.isFinite(storeShare) && storeShare > 0 ? storeShare : 1;
  // Rounded to a millionth first: 10 × 1.2 is 12.000000000000002 in floating point, not 13 records.
  const scaled = Math.round(maxEntries * share * 1e6) / 1e6;
  return Math.max(1, share > 1 ? Math.ceil(scaled) : Math.floor(scaled));
}

/**
 * The store refuses every new record for `retryAfterMs` more (a pause it decided, not a failure of the
 * moment): callers fail closed as for any unavailable store, and tell the client when to come back.
 */
export class RecordingPausedError extends Error {
  override readonly name = 'RecordingPausedError';
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
  }
}

/** A `RecordingPausedError` of this copy of the package or of another copy (`instanceof` is false then). */
export const isRecordingPausedError = crossCopyCheck(
  RecordingPausedError,
  '@passport/core.RecordingPausedError',
);

/** Whole seconds until a paused store records again (at least 1), or undefined for any other error. */
export function retryAfterSecondsOfPause(error: unknown): number | undefined {
  if (!isRecordingPausedError(error) || !(error.retryAfterMs > 0)) return undefined;
  return Math.max(1, Math.ceil(error.retryAfterMs / 1000));
}

/** What a store reports about its fill, for health checks and metrics. */
export interface ReplayStoreUsage {
  /** Records held (expired ones not yet swept included). */
  readonly records: number;
  readonly maxRecords: number;
  /** New records refused because the store was full / because their owner was at its quota. */
  readonly refusedFull: number;
  readonly refusedQuota: number;
  /** Store time (Unix ms) of the last refusal because the store was full, or null. */
  readonly lastFullAtMs: number | null;
}
