/**
 * Health check of the chain adapter family for `GET /health`: asks the chain for its time through the
 * uncached reader (a cached answer would hide an outage). Reports the adapter kind and latency, never
 * upstream text; the health endpoint bounds every check with its own deadline.
 */
import { type ChainReader, ChainUnavailableError } from '@passport/core';
import { type HealthCheckResult, type HealthIndicator } from '../infrastructure/health-indicator.js';

export class ChainHealthIndicator implements HealthIndicator {
  readonly name = 'chain';

  constructor(
    private readonly kind: 'ledger' | 'near',
    private readonly chain: ChainReader,
  ) {}

  async check(): Promise<HealthCheckResult> {
    const started = performance.now();
    try {
      await this.chain.chainTimeMs();
      return {
        ok: true,
        detail: { kind: this.kind, contractId: this.chain.contractId, latencyMs: elapsed(started) },
      };
    } catch (error) {
      const reason = error instanceof ChainUnavailableError ? error.reason : 'unavailable';
      return { ok: false, detail: { kind: this.kind, reason, latencyMs: elapsed(started) } };
    }
  }
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}
