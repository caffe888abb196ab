/**
 * With the session store failing (a real SQLite store whose database is closed), the JSON figures
 * answer 500 METRICS_FAILED, but a Prometheus scrape still reports everything else, the store-error
 * counter first of all: the scrape is how operators see the outage.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FixedClock } from '@passport/core/testing';
import { countingStoreErrors } from '../platform/store/store-error.counter.js';
import { createStoreBackend } from '../platform/store/store-backend.js';
import { MetricsSnapshotService } from './metrics-snapshot.service.js';
import { OperatorMetrics } from '../platform/metrics/operator-metrics.js';
import { RequestMetrics } from '../platform/metrics/request-metrics.js';
import { VerifyMetrics } from '../platform/metrics/verify-metrics.js';

describe('MetricsSnapshotService with a failing session store', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'passport-metrics-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('JSON: METRICS_FAILED; Prometheus text: still served, with the failures counted', async () => {
    const operator = new OperatorMetrics();
    const backend = createStoreBackend({ store: 'sqlite', dataDir });
    const sessions = countingStoreErrors(backend.sessions, 'sessions', (store, op) =>
      operator.recordStoreError(store, op),
    );
    const service = new MetricsSnapshotService(
      new RequestMetrics(),
      new VerifyMetrics(),
      operator,
      sessions,
      new FixedClock(1_000_000),
    );
    expect((await service.snapshot()).sessions).toEqual({ active: 0, total: 0 });
    const healthy = await service.prometheusText();
    expect(healthy).toMatch(/^passport_sessions_active 0$/m);

    backend.close();
    await expect(service.snapshot()).rejects.toMatchObject({ code: 'METRICS_FAILED' });
    const text = await service.prometheusText();
    expect(text).toMatch(/^passport_store_errors_total\{store="sessions",operation="countOpen"\} [1-9]/m);
    expect(text).toMatch(/^passport_sessions_active 0$/m); // the last value read
    expect(text).toMatch(/^# TYPE passport_http_request_duration_seconds histogram$/m);
  });
});
