/**
 * @module ports/hold-clock
 * Wall time for a hold that must last as long as it says (a store's refusal of replay records after a
 * loss): a step back of the wall clock does not move it back. Read against a wall clock set back a day
 * during a 331 s hold, the hold had a day left, and Retry-After said 86725 (a probe; on Redis the
 * stepped instance then republished it for the whole fleet). This reads the wall clock, but never less
 * than the reading taken when it was made, carried on by monotonic time. A step ahead is taken as it
 * comes (a hold then ends early, as it did before).
 */
import { type RemovalHorizonClocks } from './removal-horizon.js';

export function createHoldClock(clocks: RemovalHorizonClocks = {}): () => number {
  const wallNowMs = clocks.wallNowMs ?? (() => Date.now());
  const monotonicNowMs = clocks.monotonicNowMs ?? (() => performance.now());
  const anchorWallMs = wallNowMs();
  const anchorMonotonicMs = monotonicNowMs();
  // Whole milliseconds, as Date.now gives (Redis takes a hold's PX as an integer only).
  return () => Math.max(wallNowMs(), Math.floor(anchorWallMs + (monotonicNowMs() - anchorMonotonicMs)));
}
