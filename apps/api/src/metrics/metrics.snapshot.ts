/** The figures of `GET /api/metrics` (resolutions §4), gathered from the recorders and the adapters. */
import { type RequestFigures, type RouteFigures } from './request-metrics.js';
import { type VerifyFigures } from './verify-metrics.js';

export interface MetricsSnapshot {
  readonly requests: RequestFigures;
  readonly sessions: { readonly active: number; readonly total: number };
  readonly chain: { readonly reads: number; readonly cacheHits: number };
  readonly verify: VerifyFigures;
  readonly routes: Record<string, RouteFigures>;
}

const escapeLabel = (value: string): string => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/** Prometheus text exposition format 0.0.4 of the same figures. */
export function formatPrometheus(snapshot: MetricsSnapshot): string {
  const lines: string[] = [];
  const metric = (name: string, type: 'counter' | 'gauge', help: string, samples: [string, number][]) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of samples) lines.push(`${name}${labels} ${value}`);
  };
  metric('passport_requests_total', 'counter', 'HTTP requests completed.', [['', snapshot.requests.total]]);
  metric('passport_request_errors_total', 'counter', 'HTTP requests answered with a 5xx status.', [['', snapshot.requests.errors]]);
  metric('passport_requests_last_minute', 'gauge', 'HTTP requests completed in the last 60 seconds.', [['', snapshot.requests.perMinute]]);
  metric('passport_sessions_active', 'gauge', 'Open, unexpired login sessions.', [['', snapshot.sessions.active]]);
  metric('passport_sessions_stored', 'gauge', 'Login sessions held by the store.', [['', snapshot.sessions.total]]);
  metric('passport_chain_reads_total', 'counter', 'Requests sent to the chain.', [['', snapshot.chain.reads]]);
  metric('passport_chain_cache_hits_total', 'counter', 'Chain lookups answered from the cache.', [['', snapshot.chain.cacheHits]]);
  metric('passport_verify_total', 'counter', 'HOLA verifications by outcome.', [
    ['{outcome="verified"}', snapshot.verify.verified],
    ['{outcome="rejected"}', snapshot.verify.rejected],
    ['{outcome="invalid"}', snapshot.verify.invalid],
  ]);
  metric(
    'passport_verify_failure_reasons_total',
    'counter',
    'HOLA verification failure reasons.',
    Object.entries(snapshot.verify.failureReasons).map(([reason, n]) => [`{reason="${escapeLabel(reason)}"}`, n]),
  );
  metric(
    'passport_verify_refused_total',
    'counter',
    'HOLA lines that verified but were refused because the replay store could not record them, by error code.',
    ['REPLAY_STORE_FULL', 'REPLAY_QUOTA_EXCEEDED', 'REPLAY_STORE_UNAVAILABLE'].map((code) => [
      `{code="${code}"}`,
      snapshot.verify.refused[code] ?? 0,
    ]),
  );
  const routes = Object.entries(snapshot.routes);
  metric('passport_route_requests_total', 'counter', 'Requests per route pattern.', routes.map(([r, f]) => [`{route="${escapeLabel(r)}"}`, f.count]));
  metric(
    'passport_route_latency_ms',
    'gauge',
    'Recent latency percentiles per route pattern, in milliseconds.',
    routes.flatMap(([r, f]) => [
      [`{route="${escapeLabel(r)}",quantile="0.5"}`, f.p50Ms],
      [`{route="${escapeLabel(r)}",quantile="0.95"}`, f.p95Ms],
      [`{route="${escapeLabel(r)}",quantile="0.99"}`, f.p99Ms],
    ] as [string, number][]),
  );
  return `${lines.join('\n')}\n`;
}
