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
  /**
   * The dataset id and the highest counter read since the epoch last went back (`<dataset id>:<counter>`,
   * the rate-limit take's; the replies of one connection come in order).
   */
  private dataset: string | null = null;
  private highest = 0;
  private readonly backListeners: Array<() => void> = [];

  /**
   * Records what a take read from Redis; a different epoch than before drops every cached session.
   * `roundTripMs`: from just before the take was sent to its reply being handled; Redis's clock is
   * counted on from the send, so that a reply handled late does not make it read behind by the delay (a
   * cached session past its end on Redis's clock was served for that long).
   */
  observe(epoch: string, serverNowMs: number, roundTripMs = 0): void {
    if (epoch !== this.epoch) {
      this.epoch = epoch;
      for (const listener of this.listeners) listener();
      const split = epoch.lastIndexOf(':');
      const dataset = epoch.slice(0, split);
      const counter = Number(epoch.slice(split + 1));
      if (split > 0 && Number.isFinite(counter)) {
        // The same dataset with a lower counter: a snapshot, a replica behind. Another dataset (a flush, a
        // restart without persistence) is not said here: the history watch's marker finds those, and an
        // instance whose takes come back to Redis after the hold would start a second one (a fleet test).
        const wentBack = this.dataset === dataset && counter < this.highest;
        this.highest = wentBack || dataset !== this.dataset ? counter : Math.max(counter, this.highest);
        this.dataset = dataset;
        if (wentBack) for (const listener of this.backListeners) listener();
      }
    }
    this.serverNowMs = serverNowMs;
    this.observedAt = performance.now() - Math.max(0, roundTripMs);
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

  /**
   * `listener` runs when the epoch of one dataset is read lower than before: it only grows, so Redis came
   * back with older data (a snapshot, a replica behind).
   */
  onWentBack(listener: () => void): void {
    this.backListeners.push(listener);
  }

  /** `listener` runs whenever cached sessions must be dropped. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }
}
