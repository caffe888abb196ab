/**
 * Rate limiting that survives a Redis outage: takes go to the shared store; when it fails, to
 * in-process buckets (per instance, so a client may get up to N × the limit across N instances while
 * Redis is down: the choice between that and refusing everybody). After a failure the shared store is
 * tried again at most every `retryAfterMs`, so a down or slow Redis does not cost each request a
 * timeout, and takes return to it by themselves once it answers. With a `probe` (a PING), that retry
 * runs beside the requests instead of inside one: while the store is down no request waits for it
 * here, only the one that found it down. `fallbackSince` feeds health.
 */
import { printableText } from '@passport/core/codecs';
import { type BucketPolicy, type RateLimitStore, type TakeResult } from '@passport/core/ports';

const MAX_FAILURE_TEXT_LENGTH = 160;

export interface FallbackRateLimitOptions {
  /** Least milliseconds between two tries of the failed shared store (default 1000). */
  readonly retryAfterMs?: number | undefined;
  /** Wall clock (tests). */
  readonly now?: (() => number) | undefined;
  /** Asks the shared store whether it answers again, off the request path (e.g. Redis PING). */
  readonly probe?: (() => Promise<unknown>) | undefined;
}

export class FallbackRateLimitStore implements RateLimitStore {
  private failedAtMs: number | null = null;
  private failureText: string | null = null;
  private probing = false;
  private readonly retryAfterMs: number;
  private readonly now: () => number;
  private readonly probe: (() => Promise<unknown>) | undefined;

  constructor(
    private readonly primary: RateLimitStore,
    private readonly fallback: RateLimitStore,
    options: FallbackRateLimitOptions = {},
  ) {
    this.retryAfterMs = options.retryAfterMs ?? 1000;
    this.now = options.now ?? Date.now;
    this.probe = options.probe;
  }

  async take(key: string, policy: BucketPolicy, nowMs: number, cost = 1): Promise<TakeResult> {
    if (this.failedAtMs !== null) {
      // A clock set back since the failure makes it look ahead: due at once, not when the clock catches
      // up (a probe: an hour's step back kept every take in process for the hour).
      const sinceFailure = this.now() - this.failedAtMs;
      const retryDue = sinceFailure >= this.retryAfterMs || sinceFailure < 0;
      if (!retryDue) return this.fallback.take(key, policy, nowMs, cost);
      if (this.probe) {
        this.startProbe(this.probe);
        return this.fallback.take(key, policy, nowMs, cost);
      }
    }
    try {
      const result = await this.primary.take(key, policy, nowMs, cost);
      this.failedAtMs = null;
      return result;
    } catch (error) {
      this.failed(error);
      return this.fallback.take(key, policy, nowMs, cost);
    }
  }

  /**
   * The shared store failed a take or the probe: the time and the text together (a probe's timeout kept
   * the text of the out-of-memory refusal before it, which health then named as the last failure).
   */
  private failed(error: unknown): void {
    this.failedAtMs = this.now();
    this.failureText = printableText(
      (error instanceof Error ? error.message : String(error)).split('\n')[0],
      MAX_FAILURE_TEXT_LENGTH,
    );
  }

  /**
   * What the shared store last failed a take with (its first line: `OOM command not allowed …`), or null.
   * A full Redis answers PING while it refuses every take, so health, without it, read as a recovery.
   */
  get lastFailureMessage(): string | null {
    return this.failureText;
  }

  /** Wall-clock time since when takes fall back to in-process buckets, or null when they are shared. */
  get fallbackSince(): number | null {
    return this.failedAtMs;
  }

  private startProbe(probe: () => Promise<unknown>): void {
    if (this.probing) return;
    this.probing = true;
    probe().then(
      () => {
        this.probing = false;
        this.failedAtMs = null;
      },
      (error: unknown) => {
        this.probing = false;
        this.failed(error);
      },
    );
  }
}
