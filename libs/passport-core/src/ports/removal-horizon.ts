/**
 * @module ports/removal-horizon
 * The latest wall time a replay store may delete records by. A wall clock stepped ahead (an NTP step,
 * an operator's typo) and later set back let a sweep run during the step delete records still live by
 * the true time: once the clock came back, the HOLA lines and login challenges they guarded verified
 * again (a probe: a clock 10 minutes ahead for a while was enough for login challenges, 25 hours for
 * lines). The horizon is the clock's reading, but never more than monotonic time has carried the
 * reading taken when the horizon was made. A step back needs nothing: deleting by an earlier time only keeps more.
 *
 * What it costs: time that monotonic clocks do not count (a suspended machine), or a clock that was
 * behind when the horizon was made and then corrected, keeps records longer by that much until a restart;
 * a full store then refuses (fails closed) rather than evict. A clock already ahead when the horizon
 * was made is not caught.
 */

/** Caps a wall-clock reading (ms since the epoch) for deletions; see the module's note. */
export type RemovalHorizon = (wallNowMs: number) => number;

export interface RemovalHorizonClocks {
  /** The wall clock the store's times come from, read once here as the anchor (default Date.now). */
  readonly wallNowMs?: () => number;
  /** A clock that only moves forward at the rate of real time (ms, any origin; default performance.now). */
  readonly monotonicNowMs?: () => number;
}

/** Anchored now: the wall clock's reading at this call, carried on by monotonic time. */
export function createRemovalHorizon(clocks: RemovalHorizonClocks = {}): RemovalHorizon {
  const monotonicNowMs = clocks.monotonicNowMs ?? (() => performance.now());
  const anchorWallMs = (clocks.wallNowMs ?? Date.now)();
  const anchorMonotonicMs = monotonicNowMs();
  return (wallNowMs) =>
    Math.min(wallNowMs, Math.floor(anchorWallMs + (monotonicNowMs() - anchorMonotonicMs)));
}

/** No cap: deletions go by the clock as it reads (stores driven by a test's or a caller's own clock). */
export const uncappedRemoval: RemovalHorizon = (wallNowMs) => wallNowMs;
