/**
 * Gathers the figures of the metrics endpoints: the JSON snapshot of `GET /api/metrics`, and the
 * Prometheus text of `GET /api/metrics` (Accept: text/plain) and `GET /metrics`, which carries the same
 * figures (copied into the operators' registry just before rendering) plus the request-duration
 * histogram, the login, store-error and webhook counters and the process metrics.
 */
import { Inject, Injectable, Optional } from '@nestjs/common';
import { PassportError, type Clock } from '@passport/core';
import { type SessionStore } from '@passport/core/ports';
import { type CachingChainReader } from '@passport/adapters/caching';
import { CHAIN_CACHE, CLOCK, SESSION_STORE } from '../platform/infrastructure/di-tokens.js';
import { type MetricsSnapshot } from './metrics.snapshot.js';
import { OperatorMetrics, setCounter } from '../platform/metrics/operator-metrics.js';
import { RequestMetrics } from '../platform/metrics/request-metrics.js';
import { VerifyMetrics } from '../platform/metrics/verify-metrics.js';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';

/** The codes of a line refused because the replay store could not record it (always exported, 0 or more). */
const REPLAY_REFUSAL_CODES = [
  'REPLAY_STORE_FULL',
  'REPLAY_QUOTA_EXCEEDED',
  'REPLAY_STORE_UNAVAILABLE',
] as const;

@Injectable()
export class MetricsSnapshotService {
  constructor(
    private readonly requests: RequestMetrics,
    private readonly verify: VerifyMetrics,
    private readonly operator: OperatorMetrics,
    @Inject(SESSION_STORE) private readonly sessions: SessionStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional() private readonly webhooks?: WebhookDispatcher,
    @Optional() @Inject(CHAIN_CACHE) private readonly chainCache?: Pick<CachingChainReader, 'stats'>,
  ) {}

  /** The figures now; a failing store answers 500 `METRICS_FAILED`. */
  async snapshot(nowMs = this.clock.nowMs()): Promise<MetricsSnapshot> {
    try {
      const [active, listed] = await Promise.all([
        this.sessions.countOpen(nowMs),
        this.sessions.list({ offset: 0, limit: 1 }),
      ]);
      const chainStats = this.chainCache?.stats() ?? { reads: 0, cacheHits: 0 };
      return {
        requests: this.requests.requests(nowMs),
        sessions: { active, total: listed.total },
        chain: { reads: chainStats.reads, cacheHits: chainStats.cacheHits },
        verify: this.verify.figures(),
        routes: this.requests.routeFigures(),
      };
    } catch (error) {
      throw new PassportError('METRICS_FAILED', null, undefined, { cause: error });
    }
  }

  /**
   * Prometheus text exposition format 0.0.4 (content type: `contentType`). Unlike the JSON form, a
   * failing session store does not fail the scrape: the session gauges keep their last values and
   * everything else (the store-error counter first of all) is still reported.
   */
  async prometheusText(): Promise<string> {
    const nowMs = this.clock.nowMs();
    const { copied } = this.operator;
    try {
      const [active, listed] = await Promise.all([
        this.sessions.countOpen(nowMs),
        this.sessions.list({ offset: 0, limit: 1 }),
      ]);
      copied.sessionsActive.set(active);
      copied.sessionsStored.set(listed.total);
    } catch {
      // counted by passport_store_errors_total
    }
    try {
      const requests = this.requests.requests(nowMs);
      setCounter(copied.requests, requests.total);
      setCounter(copied.requestErrors, requests.errors);
      copied.requestsLastMinute.set(requests.perMinute);
      if (this.chainCache) {
        const chainStats = this.chainCache.stats();
        setCounter(copied.chainReads, chainStats.reads);
        setCounter(copied.chainCacheHits, chainStats.cacheHits);
      }
      const verify = this.verify.figures();
      setCounter(copied.verify, verify.verified, { outcome: 'verified' });
      setCounter(copied.verify, verify.rejected, { outcome: 'rejected' });
      setCounter(copied.verify, verify.invalid, { outcome: 'invalid' });
      for (const [reason, count] of Object.entries(verify.failureReasons))
        setCounter(copied.verifyFailureReasons, count, { reason });
      for (const code of REPLAY_REFUSAL_CODES)
        setCounter(copied.verifyRefused, verify.refused[code] ?? 0, { code });
      const webhooks = this.webhooks?.figures() ?? { delivered: 0, failed: 0, refused: 0 };
      for (const outcome of ['delivered', 'failed', 'refused'] as const)
        setCounter(copied.webhookDeliveries, webhooks[outcome], { outcome });
      return await this.operator.text();
    } catch {
      throw new PassportError('METRICS_FAILED');
    }
  }

  get contentType(): string {
    return this.operator.contentType;
  }
}
