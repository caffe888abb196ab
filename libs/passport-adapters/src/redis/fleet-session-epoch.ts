/**
 * What an instance last learned from Redis about the fleet's sessions: the session epoch (a counter
 * every change to a stored session increments, in the same script as the change) and Redis's clock.
 * The public rate limit reads both in the round trip every request already makes (its `take` runs
 * before any route), so a session read cache keyed on the epoch is invalidated on every instance by the
 * first request that follows a logout, revocation or renewal anywhere, before that request reads a
 * session: a session closed on one instance is refused on all others at their next request.
 *
 * When a take fails (Redis down, a timeout, or takes falling back to in-process buckets), the epoch is
 * unknown until the next successful take: the cache is not used meanwhile.
 */
import { performance } from 'node:perf_hooks';

export interface EpochObservation {
  readonly epoch: string;
  /** Redis's clock now (ms), estimated from the last observation plus the time elapsed here since. */
  readonly serverNowMs: number;
}

export class FleetSessionEpoch {
  private epoch: string | null = null;
  private serverNowMs = 0;
  private observedAt = 0;
  private readonly listeners: Array<() => void> = [];

  /** Records what a take read from Redis; a different epoch than before drops every cached session. */
  observe(epoch: string, serverNowMs: number): void {
    if (epoch !== this.epoch) {
      this.epoch = epoch;
      for (const listener of this.listeners) listener();
    }
    this.serverNowMs = serverNowMs;
    this.observedAt = performance.now();
  }

  /** The epoch can no longer be trusted (a failed take): the cache stays unused until the next take. */
  forget(): void {
    this.epoch = null;
    for (const listener of this.listeners) listener();
  }

  current(): EpochObservation | null {
    if (this.epoch === null) return null;
    return { epoch: this.epoch, serverNowMs: this.serverNowMs + (performance.now() - this.observedAt) };
  }

  /** `listener` runs whenever cached sessions must be dropped. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }
}
