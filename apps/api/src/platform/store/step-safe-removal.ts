/**
 * The removal horizon of a replay store that runs on the system clock: deletions never go by a wall
 * time ahead of where monotonic time has carried the first reading (@passport/core/ports
 * `createRemovalHorizon`: a clock stepped ahead and then back cannot delete live records). A store given
 * a clock of its own (tests that move time) deletes by that clock: monotonic time says nothing of it.
 */
import { createRemovalHorizon, uncappedRemoval, type Clock, type RemovalHorizon } from '@passport/core/ports';

export function stepSafeRemoval(injectedClock: Clock | undefined): RemovalHorizon {
  return injectedClock === undefined ? createRemovalHorizon() : uncappedRemoval;
}
