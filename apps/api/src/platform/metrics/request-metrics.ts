/**
 * Request counters and per-route latency for `GET /api/metrics`. Routes are keyed by their pattern
 * (`/api/identity/token/:tokenId/public`), never the raw URL, and their number is capped, so hostile
 * paths cannot grow memory; unmatched requests share one key.
 */
import { Injectable } from '@nestjs/common';
import { LatencyReservoir } from './latency-reservoir.js';

const MAX_ROUTES = 256;
export const UNMATCHED_ROUTE = '<unmatched>';

export interface RouteFigures {
  readonly count: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
}

export interface RequestFigures {
  readonly total: number;
  readonly errors: number;
  /** Requests completed in the last 60 seconds. */
  readonly perMinute: number;
}

@Injectable()
export class RequestMetrics {
  private total = 0;
  private errors = 0;
  private readonly routes = new Map<string, LatencyReservoir>();
  /** Requests per second over the last minute: a ring of 60 one-second buckets. */
  private readonly perSecond = new Uint32Array(60);
  private readonly bucketSecond = new Float64Array(60);

  record(route: string | undefined, statusCode: number, durationMs: number, nowMs: number): void {
    this.total++;
    if (statusCode >= 500) this.errors++;
    const second = Math.floor(nowMs / 1000);
    const slot = second % 60;
    if (this.bucketSecond[slot] !== second) {
      this.bucketSecond[slot] = second;
      this.perSecond[slot] = 0;
    }
    this.perSecond[slot]++;
    let key = route ?? UNMATCHED_ROUTE;
    if (!this.routes.has(key) && this.routes.size >= MAX_ROUTES) key = UNMATCHED_ROUTE;
    let reservoir = this.routes.get(key);
    if (!reservoir) {
      reservoir = new LatencyReservoir();
      this.routes.set(key, reservoir);
    }
    reservoir.add(durationMs);
  }

  requests(nowMs: number): RequestFigures {
    const second = Math.floor(nowMs / 1000);
    let perMinute = 0;
    for (let i = 0; i < 60; i++) {
      // A second ahead of now (stamped before the clock was set back) is not in the last minute.
      const age = second - this.bucketSecond[i];
      if (age >= 0 && age < 60) perMinute += this.perSecond[i];
    }
    return { total: this.total, errors: this.errors, perMinute };
  }

  routeFigures(): Record<string, RouteFigures> {
    const out: Record<string, RouteFigures> = {};
    for (const [route, reservoir] of [...this.routes.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      const [p50Ms, p95Ms, p99Ms] = reservoir.percentiles(50, 95, 99);
      out[route] = { count: reservoir.count, p50Ms, p95Ms, p99Ms };
    }
    return out;
  }
}
