/**
 * The operators' metrics, kept by prom-client in one registry per app (never prom-client's global one,
 * so several apps in one process — tests, benches — do not mix figures):
 * - `passport_http_request_duration_seconds{route,method,status}`: a histogram, so the figures of
 *   several instances add up (percentiles cannot). `route` is the route pattern, never the raw URL;
 *   unmatched requests share `<unmatched>`, and routes and methods are capped, so hostile paths cannot
 *   grow the label set;
 * - counters for logins and store errors, fed as they happen; verify outcomes, chain reads and cache
 *   hits, requests and sessions copied from their recorders when the text is rendered;
 * - `passport_mcp_sessions_open`, read at scrape time from where the MCP module says (`countMcpSessionsWith`);
 * - prom-client's default process metrics (event-loop lag, heap, GC, CPU, file descriptors).
 *
 * The request hot path does two map lookups and one observation in a CountedHistogram cell (counted
 * by the app and rendered by prom-client at scrape time): the cells are resolved once per route,
 * method and status and then reused.
 */
import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { CountedHistogram, type HistogramCell } from './counted-histogram.js';
import { UNMATCHED_ROUTE } from './request-metrics.js';

/**
 * Seconds; from the fast routes (a verify's event-loop work, a cached read: well under 1 ms, which a
 * first bucket of 1 ms could not tell apart) to the slow chain-bound ones.
 */
const DURATION_BUCKETS = [
  0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];
const MAX_ROUTES = 256;
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const LOGIN_ROUTE = '/api/login';

/** Per route and method: the histogram cell of each status seen so far. */
interface RouteMethodEntry {
  readonly byStatus: Map<number, HistogramCell>;
  readonly route: string;
  readonly method: string;
}

/** The store ports, and `database` for the SQLite file's own upkeep (its background WAL checkpoint). */
export type StoreName = 'replay' | 'sessions' | 'rate_limit' | 'database';

@Injectable()
export class OperatorMetrics {
  readonly registry = new Registry();
  private readonly duration: CountedHistogram<'route' | 'method' | 'status'>;
  private readonly logins: Counter<'outcome'>;
  private readonly loginOutcomes: {
    readonly success: Counter.Internal;
    readonly rejected: Counter.Internal;
    readonly error: Counter.Internal;
  };
  private readonly storeErrors: Counter<'store' | 'operation'>;
  /** Figures copied from other recorders just before the text is rendered (see `refresh`). */
  readonly copied: {
    readonly requests: Counter;
    readonly requestErrors: Counter;
    readonly requestsLastMinute: Gauge;
    readonly sessionsActive: Gauge;
    readonly sessionsStored: Gauge;
    readonly chainReads: Counter;
    readonly chainCacheHits: Counter;
    readonly verify: Counter<'outcome'>;
    readonly verifyFailureReasons: Counter<'reason'>;
    readonly verifyRefused: Counter<'code'>;
    readonly webhookDeliveries: Counter<'outcome'>;
  };
  /** Where the MCP session gauge reads its figure; unset until the MCP module registers it. */
  private mcpSessionSource: (() => number | Promise<number>) | undefined;
  /** route → method → entry; `<unmatched>` once MAX_ROUTES patterns are known. */
  private readonly routes = new Map<string, Map<string, RouteMethodEntry>>();

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.duration = new CountedHistogram(
      'passport_http_request_duration_seconds',
      'Time to answer an HTTP request, by route pattern, method and status.',
      ['route', 'method', 'status'],
      DURATION_BUCKETS,
      this.registry,
    );
    this.logins = new Counter({
      name: 'passport_logins_total',
      help: 'POST /api/login answers by outcome: success (200), rejected (4xx), error (5xx).',
      labelNames: ['outcome'],
      registers,
    });
    this.storeErrors = new Counter({
      name: 'passport_store_errors_total',
      help: 'Store operations that failed, by store and operation.',
      labelNames: ['store', 'operation'],
      registers,
    });
    const counter = (name: string, help: string) => new Counter({ name, help, registers });
    const gauge = (name: string, help: string) => new Gauge({ name, help, registers });
    this.copied = {
      requests: counter('passport_requests_total', 'HTTP requests completed.'),
      requestErrors: counter('passport_request_errors_total', 'HTTP requests answered with a 5xx status.'),
      requestsLastMinute: gauge(
        'passport_requests_last_minute',
        'HTTP requests completed in the last 60 seconds.',
      ),
      sessionsActive: gauge(
        'passport_sessions_active',
        'Open, unexpired login sessions in the store (fleet-wide on a shared store: take max() across instances, not sum()).',
      ),
      sessionsStored: gauge(
        'passport_sessions_stored',
        'Login sessions held by the store (fleet-wide on a shared store: take max() across instances).',
      ),
      chainReads: counter('passport_chain_reads_total', 'Requests sent to the chain.'),
      chainCacheHits: counter('passport_chain_cache_hits_total', 'Chain lookups answered from the cache.'),
      verify: new Counter({
        name: 'passport_verify_total',
        help: 'HOLA verifications by outcome (verified, rejected, invalid).',
        labelNames: ['outcome'],
        registers,
      }),
      verifyFailureReasons: new Counter({
        name: 'passport_verify_failure_reasons_total',
        help: 'HOLA verification failure reasons.',
        labelNames: ['reason'],
        registers,
      }),
      webhookDeliveries: new Counter({
        name: 'passport_webhook_deliveries_total',
        help: 'Outbound webhooks by outcome: delivered (2xx) and failed (no answer or another status) count deliveries (two per event, one per hook path); refused counts events stopped before any delivery (target not allowed, too many in flight).',
        labelNames: ['outcome'],
        registers,
      }),
      verifyRefused: new Counter({
        name: 'passport_verify_refused_total',
        help: 'HOLA lines that verified but were refused because the replay store could not record them, by error code.',
        labelNames: ['code'],
        registers,
      }),
    };
    const source = () => this.mcpSessionSource;
    new Gauge({
      name: 'passport_mcp_sessions_open',
      help: "Sessioned (2025-era) MCP sessions open: this instance's, or the fleet's on STORE=redis (take max() across instances, not sum()). The stateless revision opens none.",
      registers,
      async collect() {
        const read = source();
        if (read === undefined) return;
        try {
          this.set(await read());
        } catch {
          // a failing fleet store keeps the last figure; its errors are counted where they happen
        }
      },
    });
    this.loginOutcomes = {
      success: this.logins.labels('success'),
      rejected: this.logins.labels('rejected'),
      error: this.logins.labels('error'),
    };
    for (const child of Object.values(this.loginOutcomes)) child.inc(0);
  }

  /** Sets where `passport_mcp_sessions_open` is read from at each scrape. */
  countMcpSessionsWith(source: () => number | Promise<number>): void {
    this.mcpSessionSource = source;
  }

  /** Called once per answered request (Fastify's onResponse). */
  recordRequest(routePattern: string | undefined, method: string, status: number, elapsedMs: number): void {
    const entry = this.entryOf(routePattern ?? UNMATCHED_ROUTE, method);
    let cell = entry.byStatus.get(status);
    if (cell === undefined) {
      cell = this.duration.cell({ route: entry.route, method: entry.method, status: String(status) });
      entry.byStatus.set(status, cell);
    }
    cell.observe(elapsedMs / 1000);
    if (entry.route === LOGIN_ROUTE && entry.method === 'POST')
      this.loginOutcomes[status < 400 ? 'success' : status < 500 ? 'rejected' : 'error'].inc();
  }

  recordStoreError(store: StoreName, operation: string): void {
    this.storeErrors.inc({ store, operation });
  }

  /** Prometheus text exposition of everything in the registry. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private entryOf(route: string, method: string): RouteMethodEntry {
    let byMethod = this.routes.get(route);
    if (byMethod === undefined) {
      if (this.routes.size >= MAX_ROUTES && route !== UNMATCHED_ROUTE)
        return this.entryOf(UNMATCHED_ROUTE, method);
      byMethod = new Map();
      this.routes.set(route, byMethod);
    }
    let entry = byMethod.get(method);
    if (entry === undefined) {
      const label = KNOWN_METHODS.has(method) ? method : 'OTHER';
      entry = byMethod.get(label) ?? { byStatus: new Map(), route, method: label };
      byMethod.set(label, entry);
      // Node's parser admits a fixed set of methods, so keying raw ones stays bounded.
      byMethod.set(method, entry);
    }
    return entry;
  }
}

/** Sets a counter to a running total kept elsewhere (Prometheus counters only go up, and so do these). */
export function setCounter<T extends string>(
  counter: Counter<T>,
  value: number,
  labels?: Partial<Record<T, string>>,
): void {
  if (labels) {
    counter.remove(labels);
    counter.inc(labels, value);
  } else {
    counter.reset();
    counter.inc(value);
  }
}
