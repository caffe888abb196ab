/**
 * Health check of the chain adapter family for `GET /health`: asks the chain for its time through the
 * uncached reader (a cached answer would hide an outage), with a deadline. Reports the adapter kind
 * and latency; never upstream text.
 */
import { type ChainReader, ChainUnavailableError } from '@passport/core';
import { type HealthCheckResult, type HealthIndicator } from '../infrastructure/health-indicator.js';

export class ChainHealthIndicator implements HealthIndicator {
  readonly name = 'chain';

  constructor(
    private readonly kind: 'ledger' | 'near',
    private readonly chain: ChainReader,
    private readonly timeoutMs = 2000,
  ) {}

  async check(): Promise<HealthCheckResult> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.chain.chainTimeMs(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new ChainUnavailableError('timeout')), this.timeoutMs);
        }),
      ]);
      return {
        ok: true,
        detail: { kind: this.kind, contractId: this.chain.contractId, latencyMs: elapsed(started) },
      };
    } catch (error) {
      const reason = error instanceof ChainUnavailableError ? error.reason : 'unavailable';
      return { ok: false, detail: { kind: this.kind, reason, latencyMs: elapsed(started) } };
    } finally {
      clearTimeout(timer);
    }
  }
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}
