/**
 * @module ports/hold-deadline
 * The end of a hold (a store refusing replay records after a loss until what was used before is stale),
 * kept twice: on the wall clock, where it is written down and shared with other processes, and on
 * monotonic time from when it was set, which a step of the wall clock cannot stretch. The hold ends at
 * the earlier of the two. On the wall clock alone, a clock set back a day during a 331 s hold left a day
 * of it, and Retry-After said 86725 (a probe; on Redis the stepped instance republished it to the fleet).
 * Comparisons with times other processes wrote stay on the wall clock, as they must.
 */
export class HoldDeadline {
  private untilWallMs: number | null = null;
  private untilMonotonicMs = 0;

  /**
   * @param maxMs no hold set here lasts longer, however far its wall end lies (a clock ahead where it
   *   was written).
   */
  constructor(
    private readonly wallNowMs: () => number,
    private readonly maxMs: number,
    private readonly monotonicNowMs: () => number = () => performance.now(),
  ) {}

  /**
   * Sets the end, a wall time (ms since the epoch), or none; `maxMs`: this hold's own bound in place of the
   * constructor's (a Redis loss's hold lengthened by the fleet's clock spread).
   */
  set(untilWallMs: number | null, maxMs: number = this.maxMs): void {
    this.untilWallMs = untilWallMs;
    if (untilWallMs === null) return;
    const lasts = Math.min(Math.max(0, maxMs), Math.max(0, untilWallMs - this.wallNowMs()));
    this.untilMonotonicMs = this.monotonicNowMs() + lasts;
  }

  /** The end on the wall clock as set, or null. */
  get untilMs(): number | null {
    return this.untilWallMs;
  }

  /** Whole milliseconds left (0 when none is running). */
  remainingMs(): number {
    if (this.untilWallMs === null) return 0;
    const byWall = this.untilWallMs - this.wallNowMs();
    const byMonotonic = Math.ceil(this.untilMonotonicMs - this.monotonicNowMs());
    return Math.max(0, Math.min(byWall, byMonotonic));
  }
}
