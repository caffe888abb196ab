/** Outcome counters of HOLA verification (`verify` in `GET /api/metrics`), fed by the verify surface. */
import { Injectable } from '@nestjs/common';
import { PassportError } from '@passport/core';
import { httpStatusOfError } from '../http/http-status.table.js';

/** Lines that verified but could not be recorded, so were refused (the replay store failed closed). */
const REFUSAL_CODES: ReadonlySet<string> = new Set([
  'REPLAY_STORE_FULL',
  'REPLAY_QUOTA_EXCEEDED',
  'REPLAY_STORE_UNAVAILABLE',
]);

export interface VerifyFigures {
  readonly total: number;
  readonly verified: number;
  readonly rejected: number;
  /** 400 early-validation answers (format, checksum, lint). */
  readonly invalid: number;
  readonly failureReasons: Record<string, number>;
  /** Lines refused because the replay store could not record them, by error code. */
  readonly refused: Record<string, number>;
}

@Injectable()
export class VerifyMetrics {
  private verified = 0;
  private rejected = 0;
  private invalid = 0;
  private readonly reasons = new Map<string, number>();
  private readonly refusals = new Map<string, number>();

  recordResult(verified: boolean, failureReasons: readonly string[]): void {
    if (verified) this.verified++;
    else this.rejected++;
    for (const reason of failureReasons) this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + 1);
  }

  recordInvalid(): void {
    this.invalid++;
  }

  /** Counts a verification that ended in an error: 400s as invalid, replay-store refusals by code. */
  recordError(error: unknown): void {
    if (!(error instanceof PassportError)) return;
    if (httpStatusOfError(error) === 400) this.invalid++;
    else if (REFUSAL_CODES.has(error.code))
      this.refusals.set(error.code, (this.refusals.get(error.code) ?? 0) + 1);
  }

  figures(): VerifyFigures {
    return {
      total: this.verified + this.rejected + this.invalid,
      verified: this.verified,
      rejected: this.rejected,
      invalid: this.invalid,
      failureReasons: Object.fromEntries([...this.reasons.entries()].sort(([a], [b]) => a.localeCompare(b))),
      refused: Object.fromEntries([...this.refusals.entries()].sort(([a], [b]) => a.localeCompare(b))),
    };
  }
}
