/** Outcome counters of HOLA verification (`verify` in `GET /api/metrics`), fed by the verify surface. */
import { Injectable } from '@nestjs/common';

export interface VerifyFigures {
  readonly total: number;
  readonly verified: number;
  readonly rejected: number;
  /** 400 early-validation answers (format, checksum, lint). */
  readonly invalid: number;
  readonly failureReasons: Record<string, number>;
}

@Injectable()
export class VerifyMetrics {
  private verified = 0;
  private rejected = 0;
  private invalid = 0;
  private readonly reasons = new Map<string, number>();

  recordResult(verified: boolean, failureReasons: readonly string[]): void {
    if (verified) this.verified++;
    else this.rejected++;
    for (const reason of failureReasons) this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + 1);
  }

  recordInvalid(): void {
    this.invalid++;
  }

  figures(): VerifyFigures {
    return {
      total: this.verified + this.rejected + this.invalid,
      verified: this.verified,
      rejected: this.rejected,
      invalid: this.invalid,
      failureReasons: Object.fromEntries([...this.reasons.entries()].sort(([a], [b]) => a.localeCompare(b))),
    };
  }
}
