import fc from 'fast-check';
import { AggregatorRegistry, Histogram, Registry } from 'prom-client';
import { CountedHistogram } from './counted-histogram.js';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const NAME = 'test_duration_seconds';
const HELP = 'A test histogram.';

/** The same observations in a prom-client Histogram and in a CountedHistogram, each in its own registry. */
function both(observations: readonly { route: string; status: string; seconds: number }[]) {
  const reference = new Registry();
  const histogram = new Histogram({
    name: NAME,
    help: HELP,
    labelNames: ['route', 'status'],
    buckets: BUCKETS,
    registers: [reference],
  });
  const counted = new Registry();
  const ours = new CountedHistogram(NAME, HELP, ['route', 'status'], BUCKETS, counted);
  for (const o of observations) {
    histogram.labels(o.route, o.status).observe(o.seconds);
    ours.cell({ route: o.route, status: o.status }).observe(o.seconds);
  }
  return { reference, counted, ours };
}

const observation = fc.record({
  route: fc.constantFrom('/health', '/api/me/identity', '<unmatched>', '/a "quoted" \\ route'),
  status: fc.constantFrom('200', '404', '503'),
  // Bounds themselves, values between and beyond them, and zero.
  seconds: fc.oneof(fc.constantFrom(0, ...BUCKETS), fc.double({ min: 0, max: 30, noNaN: true })),
});

describe('CountedHistogram', () => {
  it('renders the Prometheus text prom-client’s Histogram renders for the same observations (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(observation, { maxLength: 80 }), async (observations) => {
        const { reference, counted } = both(observations);
        expect(await counted.metrics()).toBe(await reference.metrics());
      }),
      { numRuns: 100 },
    );
  });

  it('gives the JSON form prom-client gives, so several instances aggregate alike (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(observation, { maxLength: 40 }),
        fc.array(observation, { maxLength: 40 }),
        async (a, b) => {
          const [one, two] = [both(a), both(b)];
          const json = await one.counted.getMetricsAsJSON();
          expect(json).toEqual(await one.reference.getMetricsAsJSON());
          const merged = AggregatorRegistry.aggregate([json, await two.counted.getMetricsAsJSON()]);
          const expected = AggregatorRegistry.aggregate([
            await one.reference.getMetricsAsJSON(),
            await two.reference.getMetricsAsJSON(),
          ]);
          expect(await merged.metrics()).toBe(await expected.metrics());
        },
      ),
      { numRuns: 50 },
    );
  });

  it('ignores a non-finite observation instead of poisoning the sum, and resets with the registry', async () => {
    const { counted, ours } = both([{ route: '/x', status: '200', seconds: 0.002 }]);
    ours.cell({ route: '/x', status: '200' }).observe(Number.NaN);
    ours.cell({ route: '/x', status: '200' }).observe(Number.POSITIVE_INFINITY);
    const text = await counted.metrics();
    expect(text).toMatch(/^test_duration_seconds_count\{route="\/x",status="200"\} 1$/m);
    expect(text).toMatch(/^test_duration_seconds_sum\{route="\/x",status="200"\} 0.002$/m);
    counted.resetMetrics();
    expect(await counted.metrics()).not.toContain('test_duration_seconds_count');
  });

  it('a cell kept by its caller across a reset still counts where the text shows it', async () => {
    const { counted, ours } = both([]);
    const kept = ours.cell({ route: '/x', status: '200' });
    kept.observe(0.002);
    counted.resetMetrics();
    kept.observe(0.003);
    const text = await counted.metrics();
    expect(text).toMatch(/^test_duration_seconds_count\{route="\/x",status="200"\} 1$/m);
    expect(text).toMatch(/^test_duration_seconds_sum\{route="\/x",status="200"\} 0.003$/m);
  });
});
