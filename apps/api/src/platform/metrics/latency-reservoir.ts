/**
 * A fixed-size ring of the most recent latencies of one route, for percentiles. Bounded memory per
 * route whatever the traffic; percentiles describe the recent window, which is what an operator wants.
 */
export class LatencyReservoir {
  private readonly samples: Float64Array;
  private filled = 0;
  private next = 0;
  count = 0;

  constructor(size = 1024) {
    this.samples = new Float64Array(size);
  }

  add(ms: number): void {
    this.samples[this.next] = ms;
    this.next = (this.next + 1) % this.samples.length;
    this.filled = Math.min(this.filled + 1, this.samples.length);
    this.count++;
  }

  /** Nearest-rank percentiles (p in 0..100) of the retained samples, rounded to 0.01 ms. */
  percentiles(...ps: number[]): number[] {
    if (this.filled === 0) return ps.map(() => 0);
    const sorted = Array.from(this.samples.subarray(0, this.filled)).sort((a, b) => a - b);
    return ps.map((p) => {
      const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
      return Math.round(sorted[rank] * 100) / 100;
    });
  }
}
