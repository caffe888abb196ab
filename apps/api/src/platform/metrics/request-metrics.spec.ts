import { RequestMetrics } from './request-metrics.js';

const T = 1_800_000_000_000;

describe('RequestMetrics.requests', () => {
  it('counts the requests of the last 60 seconds', () => {
    const metrics = new RequestMetrics();
    metrics.record('GET /health', 200, 1, T - 61_000);
    for (let i = 0; i < 3; i++) metrics.record('GET /health', 200, 1, T - 59_000 + i);
    metrics.record('GET /health', 500, 1, T);
    expect(metrics.requests(T)).toEqual({ total: 5, errors: 1, perMinute: 4 });
  });

  // Found by a clock-step probe: after the wall clock was set back, requests stamped "in the future"
  // kept counting (44 a minute against 8 a moment before).
  it('does not count seconds ahead of now (a clock set back)', () => {
    const metrics = new RequestMetrics();
    for (let i = 0; i < 40; i++) metrics.record('GET /health', 200, 1, T + 30_000);
    metrics.record('GET /health', 200, 1, T);
    expect(metrics.requests(T).perMinute).toBe(1);
  });
});
