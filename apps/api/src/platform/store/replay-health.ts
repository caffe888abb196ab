/**
 * The replay store's part of the store health check: its fill and refusals, and `degraded` while it
 * is refusing new records (full within the last minute, or at its cap now): HOLA lines are then being
 * refused with REPLAY_STORE_FULL, which a load balancer or an operator must see.
 */
import { type ReplayStoreUsage } from '@passport/core/ports';
import { withinLast } from './within-last.js';

/** How long after the last "store full" refusal health keeps reporting it. */
export const REPLAY_FULL_REPORT_MS = 60_000;

export interface ReplayHealth {
  readonly ok: boolean;
  readonly detail: Record<string, unknown>;
}

export function replayHealth(usage: ReplayStoreUsage, nowMs: number): ReplayHealth {
  const full =
    usage.records >= usage.maxRecords || withinLast(usage.lastFullAtMs, nowMs, REPLAY_FULL_REPORT_MS);
  return {
    ok: !full,
    detail: {
      records: usage.records,
      maxRecords: usage.maxRecords,
      refusedFull: usage.refusedFull,
      refusedQuota: usage.refusedQuota,
      ...(full ? { problem: 'replay store full' } : {}),
    },
  };
}
