/**
 * Options shared by the SQLite store adapters: the row cap of the adapter's table, the background
 * sweep interval, and the clock the sweep reads (request paths pass their own `nowMs`).
 */
import { type Clock } from '@passport/core';

export interface SqliteStoreOptions {
  /**
   * Row cap of the table. At the cap expired rows go first; then the replay and session stores refuse
   * (REPLAY_STORE_FULL, SessionCapacityError: a live record or another holder's session is never
   * dropped), and the rate-limit store evicts the least recently updated buckets (a bucket reset to full).
   */
  readonly maxEntries?: number | undefined;
  /** Interval of the background sweep of expired rows (ms; 0 disables the timer). Default 60 000. */
  readonly sweepIntervalMs?: number | undefined;
  /** Clock of the background sweep. Default: the system clock. */
  readonly clock?: Clock | undefined;
  /** Called when a background sweep fails (the stores stay correct; only their size is bounded by it). */
  readonly onSweepError?: ((error: unknown) => void) | undefined;
}

export const DEFAULT_SWEEP_INTERVAL_MS = 60_000;
