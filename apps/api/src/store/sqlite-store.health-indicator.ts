/**
 * Health of the SQLite store: a real read of the database file (the trigger-kept row counts) with its
 * latency. `ok: false` when the database cannot answer (closed, unreadable, locked beyond busy_timeout).
 * The detail is client-safe: the adapter kind and timings, never the error text or file path.
 */
import { performance } from 'node:perf_hooks';
import { type HealthCheckResult, type HealthIndicator } from '../infrastructure/health-indicator.js';
import { type SqliteDatabase } from './sqlite.database.js';

export class SqliteStoreHealthIndicator implements HealthIndicator {
  readonly name = 'store';

  constructor(private readonly db: SqliteDatabase) {}

  async check(): Promise<HealthCheckResult> {
    const started = performance.now();
    try {
      this.db.snapshot(() => {
        this.db.rowCount('replay_records');
        this.db.rowCount('sessions');
        this.db.rowCount('rate_buckets');
      });
      return { ok: true, detail: { adapter: 'sqlite', latencyMs: elapsedMs(started) } };
    } catch {
      return {
        ok: false,
        detail: { adapter: 'sqlite', latencyMs: elapsedMs(started), problem: 'database unavailable' },
      };
    }
  }
}

function elapsedMs(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}
