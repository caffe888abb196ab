/**
 * @module ports/removal-horizon
 * The latest wall time a replay store that cannot keep a monotonic deadline per record (one shared
 * with other processes: SQLite) may delete records by. A wall clock stepped ahead (an NTP step, an
 * operator's typo) and later set back let a sweep run during the step delete records still live by the
 * true time: once the clock came back, the HOLA lines and login challenges they guarded verified again
 * (a probe: a clock 10 minutes ahead for a while was enough for login challenges, 25 hours for lines).
 * The horizon is the clock's reading, but never more than monotonic time has carried the reading taken
 * when the horizon was made. A step back needs nothing: deleting by an earlier time only keeps more.
 *
 * What it costs: time monotonic clocks do not count (a suspended machine), or a clock that was behind
 * when the horizon was made and then corrected, keeps every record longer by that much; so the lag is
 * bounded (`maxLagMs`, default 25 h: a record's longest life, a line verified with the largest
 * `maxAgeMs`, and an hour), beyond which deletions follow the wall clock less that bound. A step ahead
 * longer than the bound, or a clock already ahead when the horizon was made, is not caught.
 */

/** Caps a wall-clock reading (ms since the epoch) for deletions; see the module's note. */
export type RemovalHorizon = (wallNowMs: number) => number;

/** A record's longest life (a line verified with `maxAgeMs` of 24 h) and an hour. */
export const DEFAULT_REMOVAL_MAX_LAG_MS = 25 * 3_600_000;

export interface RemovalHorizonOptions {
  /** The wall clock the store's times come from, read once here as the anchor (default Date.now). */
  readonly wallNowMs?: (() => number) | undefined;
  /** A clock that only moves forward at the rate of real time (ms, any origin; default performance.now). */
  readonly monotonicNowMs?: (() => number) | undefined;
  /** How far the horizon may lag the wall clock at most (default `DEFAULT_REMOVAL_MAX_LAG_MS`). */
  readonly maxLagMs?: number | undefined;
}

/** Anchored now: the wall clock's reading at this call, carried on by monotonic time. */
export function createRemovalHorizon(options: RemovalHorizonOptions = {}): RemovalHorizon {
  const monotonicNowMs = options.monotonicNowMs ?? (() => performance.now());
  const maxLagMs = options.maxLagMs ?? DEFAULT_REMOVAL_MAX_LAG_MS;
  const anchorWallMs = (options.wallNowMs ?? Date.now)();
  const anchorMonotonicMs = monotonicNowMs();
  return (wallNowMs) => {
    const carried = Math.floor(anchorWallMs + (monotonicNowMs() - anchorMonotonicMs));
    return Math.max(Math.min(wallNowMs, carried), wallNowMs - maxLagMs);
  };
}

/** No cap: deletions go by the clock as it reads (stores driven by a test's or a caller's own clock). */
export const uncappedRemoval: RemovalHorizon = (wallNowMs) => wallNowMs;
