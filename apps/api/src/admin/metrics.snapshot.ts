/** The figures of `GET /api/metrics` (docs/protocol.md §4), gathered from the recorders and the adapters. */
import { type RequestFigures, type RouteFigures } from '../platform/metrics/request-metrics.js';
import { type VerifyFigures } from '../platform/metrics/verify-metrics.js';

export interface MetricsSnapshot {
  readonly requests: RequestFigures;
  readonly sessions: { readonly active: number; readonly total: number };
  readonly chain: { readonly reads: number; readonly cacheHits: number };
  readonly verify: VerifyFigures;
  readonly routes: Record<string, RouteFigures>;
}
