/**
 * @module memory/fixed.clock
 * A Clock that only moves when told to, so that tests of freshness, expiry and replay windows are exact.
 */
import { type Clock } from '../ports/clock.port.js';

export class FixedClock implements Clock {
  constructor(private current = 0) {}

  nowMs(): number {
    return this.current;
  }

  set(ms: number): void {
    this.current = ms;
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
