/**
 * The removal horizon of a replay store that runs on the system clock: deletions never go by a wall
 * time ahead of where monotonic time has carried the reading at start (@passport/core/ports
 * `createRemovalHorizon`: a clock stepped ahead and then back cannot delete live records). A store on
 * a clock of its own (tests that move time) deletes by that clock: monotonic time says nothing of it.
 * The app always hands the stores its CLOCK, `systemClock` unless a test gives another: the first
 * version took any clock given for a test's, and the horizon was off in production (a review).
 */
import {
  createRemovalHorizon,
  systemClock,
  uncappedRemoval,
  type Clock,
  type RemovalHorizon,
} from '@passport/core/ports';

/** Whether a store runs on the system's wall clock, whose steps monotonic time can catch. */
export function runsOnSystemClock(clock: Clock | undefined): boolean {
  return clock === undefined || clock === systemClock;
}

export function stepSafeRemoval(clock: Clock | undefined): RemovalHorizon {
  return runsOnSystemClock(clock) ? createRemovalHorizon() : uncappedRemoval;
}
