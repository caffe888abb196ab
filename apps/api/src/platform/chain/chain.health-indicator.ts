/**
 * Health check of the chain adapter family for `GET /health`: asks the chain for its time through the
 * uncached reader (a cached answer would hide an outage). Reports the adapter kind and latency, never
 * upstream text; the health endpoint bounds every check with its own deadline. For the ledger, whose
 * "chain time" is the local clock, the check re-reads the file if it changed and reports the outcome of
 * that load: a ledger that no longer parses (or cannot be read) is `degraded`, even though the last
 * good content keeps serving requests. The server's own passport is judged too (cached reads): revoked,
 * transferred, gone or no longer live is `degraded` with that reason, and logins are refused meanwhile;
 * naming another home than PUBLIC_BASE_URL is `degraded` with both URLs (logins of its copies fail).
 */
import { type ChainReader, ChainUnavailableError } from '@passport/core';
import { type HealthCheckResult, type HealthIndicator } from '../infrastructure/health-indicator.js';
import { LedgerChainReader } from '@passport/adapters/ledger';
import { type ServerPassportCheck } from './server-passport.check.js';
import { type ServerUrlCheck } from './server-url.check.js';

/** How far the NEAR node's final block may be from the local clock, either way, before health says so (blocks come every ~1 s). */
export const CHAIN_STALE_AFTER_MS = 120_000;

export class ChainHealthIndicator implements HealthIndicator {
  readonly name = 'chain';

  constructor(
    private readonly kind: 'ledger' | 'near',
    private readonly chain: ChainReader,
    /** The server's own passport (revoked, transferred, gone or expired on chain: degraded, with why). */
    private readonly serverPassport?: Pick<ServerPassportCheck, 'problem'>,
    /** The server passport naming another home than PUBLIC_BASE_URL: degraded, with both URLs. */
    private readonly serverUrl?: Pick<ServerUrlCheck, 'mismatch'>,
    private readonly nowMs: () => number = Date.now,
  ) {}

  async check(): Promise<HealthCheckResult> {
    const started = performance.now();
    try {
      const chainMs = await this.chain.chainTimeMs();
      if (this.chain instanceof LedgerChainReader) {
        await this.chain.refresh();
        const outcome = this.chain.lastLoadOutcome;
        if (!outcome.ok) {
          const reason = outcome.problem === 'unparsable' ? 'ledger_unparsable' : 'ledger_unreadable';
          return { ok: false, detail: { kind: this.kind, reason, latencyMs: elapsed(started) } };
        }
      }
      // A node whose final block is minutes old (stuck, or still syncing) answers every read with old
      // passports, revocations and keys (a probe saw `healthy` with a block 6 h old); one minutes ahead
      // of the clock judges passports not yet due as expired, the server's own among them. Named first,
      // since it can be what the server passport's problem comes from (a review), which is added.
      const lagMs = this.nowMs() - chainMs;
      const chainProblem =
        this.kind === 'near' && Math.abs(lagMs) > CHAIN_STALE_AFTER_MS
          ? lagMs > 0
            ? 'chain_stale'
            : 'chain_ahead'
          : undefined;
      const serverProblem = await this.serverPassport?.problem();
      if (chainProblem !== undefined)
        return {
          ok: false,
          detail: {
            kind: this.kind,
            reason: chainProblem,
            lagSeconds: Math.trunc(lagMs / 1000),
            ...(serverProblem === undefined ? {} : { serverPassport: serverProblem }),
            latencyMs: elapsed(started),
          },
        };
      if (serverProblem !== undefined)
        return { ok: false, detail: { kind: this.kind, reason: serverProblem, latencyMs: elapsed(started) } };
      const urls = await this.serverUrl?.mismatch();
      if (urls !== undefined)
        return {
          ok: false,
          detail: {
            kind: this.kind,
            reason: 'server_passport_url_mismatch',
            ...urls,
            latencyMs: elapsed(started),
          },
        };
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
