import fc from 'fast-check';
import { AggregatorRegistry } from 'prom-client';
import { OperatorMetrics } from './operator-metrics.js';

interface MetricJson {
  readonly name: string;
  readonly values: {
    readonly labels: Record<string, string | number>;
    readonly value: number;
    readonly metricName?: string;
  }[];
}

/** The `_count` series of the duration histogram, from prom-client's JSON form. */
const seriesOf = async (metrics: OperatorMetrics) => {
  const json = (await metrics.registry.getMetricsAsJSON()) as unknown as MetricJson[];
  const histogram = json.find((m) => m.name === 'passport_http_request_duration_seconds')!;
  return histogram.values.filter((v) => v.metricName === 'passport_http_request_duration_seconds_count');
};

describe('OperatorMetrics', () => {
  it('keeps the label set bounded whatever the routes and methods (patterns beyond 256 share <unmatched>)', async () => {
    const metrics = new OperatorMetrics();
    for (let i = 0; i < 400; i++) metrics.recordRequest(`/route/${i}`, 'GET', 200, 1);
    metrics.recordRequest('/route/0', 'PROPFIND', 200, 1);
    const counts = await seriesOf(metrics);
    expect(counts.length).toBeLessThanOrEqual(258);
    const unmatched = counts.find((c) => c.labels.route === '<unmatched>');
    expect(unmatched?.value).toBe(400 - 256);
    expect(counts.find((c) => c.labels.route === '/route/0' && c.labels.method === 'OTHER')?.value).toBe(1);
  });

  it('counts every request once, in the bucket of its duration (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            route: fc.constantFrom('/a', '/b', undefined),
            status: fc.constantFrom(200, 404, 503),
            ms: fc.double({ min: 0, max: 20_000, noNaN: true }),
          }),
          { maxLength: 60 },
        ),
        async (requests) => {
          const metrics = new OperatorMetrics();
          for (const r of requests) metrics.recordRequest(r.route, 'GET', r.status, r.ms);
          const total = (await seriesOf(metrics)).reduce((sum, c) => sum + c.value, 0);
          expect(total).toBe(requests.length);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('counts POST /api/login answers by outcome', async () => {
    const metrics = new OperatorMetrics();
    for (const status of [200, 200, 401, 400, 503]) metrics.recordRequest('/api/login', 'POST', status, 2);
    metrics.recordRequest('/api/login/timestamp', 'GET', 200, 1);
    const text = await metrics.text();
    expect(text).toMatch(/^passport_logins_total\{outcome="success"\} 2$/m);
    expect(text).toMatch(/^passport_logins_total\{outcome="rejected"\} 2$/m);
    expect(text).toMatch(/^passport_logins_total\{outcome="error"\} 1$/m);
  });

  it('two instances add up: prom-client’s aggregator sums their histograms series by series', async () => {
    const [one, two] = [new OperatorMetrics(), new OperatorMetrics()];
    for (let i = 0; i < 3; i++) one.recordRequest('/health', 'GET', 200, 4);
    for (let i = 0; i < 5; i++) two.recordRequest('/health', 'GET', 200, 40);
    const merged = AggregatorRegistry.aggregate([
      await one.registry.getMetricsAsJSON(),
      await two.registry.getMetricsAsJSON(),
    ]);
    const text = await merged.metrics();
    expect(text).toMatch(
      /^passport_http_request_duration_seconds_count\{route="\/health",method="GET",status="200"\} 8$/m,
    );
    expect(text).toMatch(
      /^passport_http_request_duration_seconds_bucket\{le="0.005",route="\/health",method="GET",status="200"\} 3$/m,
    );
    expect(text).toMatch(
      /^passport_http_request_duration_seconds_bucket\{le="0.05",route="\/health",method="GET",status="200"\} 8$/m,
    );
  });
});
