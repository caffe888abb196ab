/**
 * Gathers the figures of the metrics endpoints: the JSON snapshot of `GET /api/metrics`, and the
 * Prometheus text of `GET /api/metrics` (Accept: text/plain) and `GET /metrics`, which carries the same
 * figures (copied into the operators' registry just before rendering) plus the request-duration
 * histogram, the login and store-error counters and the process metrics.
 */
import { Inject, Injectable } from '@nestjs/common';
import { PassportError, type ChainReader, type Clock } from '@passport/core';
import { type SessionStore } from '@passport/core/ports';
import { CachingChainReader } from '../chain/caching-chain.reader.js';
import { CHAIN_READER, CLOCK, SESSION_STORE } from '../infrastructure/di-tokens.js';
import { type MetricsSnapshot } from './metrics.snapshot.js';
import { OperatorMetrics, setCounter } from './operator-metrics.js';
import { RequestMetrics } from './request-metrics.js';
import { VerifyMetrics } from './verify-metrics.js';

@Injectable()
export class MetricsSnapshotService {
  constructor(
    private readonly requests: RequestMetrics,
    private readonly verify: VerifyMetrics,
    private readonly operator: OperatorMetrics,
    @Inject(SESSION_STORE) private readonly sessions: SessionStore,
    @Inject(CHAIN_READER) private readonly chain: ChainReader,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The figures now; a failing store answers 500 `METRICS_FAILED`. */
  async snapshot(nowMs = this.clock.nowMs()): Promise<MetricsSnapshot> {
    try {
      const [active, listed] = await Promise.all([
        this.sessions.countOpen(nowMs),
        this.sessions.list({ offset: 0, limit: 1 }),
      ]);
      const chainStats = this.chain instanceof CachingChainReader ? this.chain.stats() : { reads: 0, cacheHits: 0 };
      return {
        requests: this.requests.requests(nowMs),
        sessions: { active, total: listed.total },
        chain: { reads: chainStats.reads, cacheHits: chainStats.cacheHits },
        verify: this.verify.figures(),
        routes: this.requests.routeFigures(),
      };
    } catch {
      throw new PassportError('METRICS_FAILED');
    }
  }

  /** Prometheus text exposition format 0.0.4 (content type: `contentType`). */
  async prometheusText(): Promise<string> {
    const snapshot = await this.snapshot();
    const { copied } = this.operator;
    setCounter(copied.requests, snapshot.requests.total);
    setCounter(copied.requestErrors, snapshot.requests.errors);
    copied.requestsLastMinute.set(snapshot.requests.perMinute);
    copied.sessionsActive.set(snapshot.sessions.active);
    copied.sessionsStored.set(snapshot.sessions.total);
    setCounter(copied.chainReads, snapshot.chain.reads);
    setCounter(copied.chainCacheHits, snapshot.chain.cacheHits);
    setCounter(copied.verify, snapshot.verify.verified, { outcome: 'verified' });
    setCounter(copied.verify, snapshot.verify.rejected, { outcome: 'rejected' });
    setCounter(copied.verify, snapshot.verify.invalid, { outcome: 'invalid' });
    for (const [reason, count] of Object.entries(snapshot.verify.failureReasons))
      setCounter(copied.verifyFailureReasons, count, { reason });
    try {
      return await this.operator.text();
    } catch {
      throw new PassportError('METRICS_FAILED');
    }
  }

  get contentType(): string {
    return this.operator.contentType;
  }
}
