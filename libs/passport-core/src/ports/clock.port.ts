/**
 * @module ports/clock.port
 * Wall-clock time, injected so that freshness, expiry and replay windows are testable.
 */
export interface Clock {
  /** Unix time in milliseconds. */
  nowMs(): number;
}

export const systemClock: Clock = Object.freeze({ nowMs: () => Date.now() });
