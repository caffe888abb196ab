/**
 * @module memory/memory-replay.store
 * Single-instance ReplayStore on a Map. `recordIfAbsent` checks and records without awaiting in
 * between, so on one event loop it is atomic: of N concurrent calls with one key exactly one records.
 *
 * Memory is capped (`maxEntries`, default 100 000) and a live record is never evicted: when full,
 * expired records are swept (at most once per `sweepIntervalMs` of store time, so a flood cannot make
 * every insert O(n)) and, if still full, the new record is refused with `REPLAY_STORE_FULL` (the
 * caller fails closed). Evicting the oldest live record instead would let its line verify twice.
 * A record charged to an owner (`quota`) is refused with `REPLAY_QUOTA_EXCEEDED` once that owner
 * holds `maxPerOwner` live records, so one sender cannot fill the store for everybody.
 */
import { PassportError } from '../errors/passport.error.js';
import {
  type RecordOutcome,
  type RecordQuota,
  type ReplayStore,
  type ReplayStoreUsage,
  storeCap,
} from '../ports/replay-store.port.js';
import { positiveCap } from '../ports/store-cap.js';

export interface MemoryReplayStoreOptions {
  /** Maximum records held (default 100 000). */
  readonly maxEntries?: number | undefined;
  /** Minimum store time between full sweeps triggered by a full store or owner (default 1000 ms). */
  readonly sweepIntervalMs?: number | undefined;
  /**
   * Monotonic time (ms, any origin; e.g. `() => performance.now()`). Given, a record is deleted only
   * once it has expired both by the time given and by monotonic time from when it was recorded, so a
   * wall clock stepped ahead and then back cannot delete a live record (a probe: used login challenges
   * and lines verified again once the clock came back), and a suspend delays only the records made
   * before it. Default: none, records go by the time given (callers that drive time themselves).
   */
  readonly monotonicNowMs?: (() => number) | undefined;
}

/** The outcome every successful record shares (it is immutable). */
const RECORDED: RecordOutcome = Object.freeze({ recorded: true });

interface ReplayEntry {
  readonly firstSeenAtMs: number;
  readonly expiresAtMs: number;
  readonly owner: string | undefined;
  /** When it expires on monotonic time (`monotonicNowMs`), or -Infinity without one. */
  readonly monotonicExpiresAtMs: number;
}

export class MemoryReplayStore implements ReplayStore {
  readonly maxEntries: number;
  private readonly sweepIntervalMs: number;
  private readonly monotonicNowMs: (() => number) | undefined;
  private readonly entries = new Map<string, ReplayEntry>();
  /** Records held per owner (expired ones not yet swept included). */
  private readonly perOwner = new Map<string, number>();
  private lastSweepMs = Number.NEGATIVE_INFINITY;
  private refusedFullCount = 0;
  private refusedQuotaCount = 0;
  private lastFullAtMs: number | null = null;

  constructor(options: MemoryReplayStoreOptions = {}) {
    this.maxEntries = positiveCap(options.maxEntries ?? 100_000, 'maxEntries');
    this.sweepIntervalMs = options.sweepIntervalMs ?? 1000;
    this.monotonicNowMs = options.monotonicNowMs;
  }

  async recordIfAbsent(
    key: string,
    nowMs: number,
    expiresAtMs: number,
    quota?: RecordQuota,
    storeShare?: number,
  ): Promise<RecordOutcome> {
    // No await from here to the end: the check and the record are one step on the event loop.
    const existing = this.entries.get(key);
    if (existing && existing.expiresAtMs > nowMs)
      return { recorded: false, firstSeenAtMs: existing.firstSeenAtMs };
    if (existing) this.remove(key, existing);
    const owner = quota?.owner;
    if (quota && (this.perOwner.get(quota.owner) ?? 0) >= quota.maxPerOwner) {
      this.sweepIfDue(nowMs);
      if ((this.perOwner.get(quota.owner) ?? 0) >= quota.maxPerOwner) {
        this.refusedQuotaCount++;
        throw new PassportError('REPLAY_QUOTA_EXCEEDED', { maxPerSender: quota.maxPerOwner });
      }
    }
    const cap = storeCap(this.maxEntries, storeShare);
    if (this.entries.size >= cap) {
      this.dropExpiredOldest(nowMs);
      if (this.entries.size >= cap) this.sweepIfDue(nowMs);
      if (this.entries.size >= cap) {
        // A share's own limit (subagent lines at half) is not the store being full (health, metrics).
        if (cap >= this.maxEntries) {
          this.refusedFullCount++;
          this.lastFullAtMs = nowMs;
        }
        throw new PassportError('REPLAY_STORE_FULL');
      }
    }
    const monotonicExpiresAtMs = this.monotonicNowMs
      ? this.monotonicNowMs() + (expiresAtMs - nowMs)
      : Number.NEGATIVE_INFINITY;
    this.entries.set(key, { firstSeenAtMs: nowMs, expiresAtMs, owner, monotonicExpiresAtMs });
    if (owner !== undefined) this.perOwner.set(owner, (this.perOwner.get(owner) ?? 0) + 1);
    return RECORDED;
  }

  /** Removes expired records; returns how many were removed. */
  sweep(nowMs: number): number {
    this.lastSweepMs = nowMs;
    const monotonicNow = this.monotonicNowMs?.() ?? 0;
    let removed = 0;
    for (const [key, entry] of this.entries) {
      if (entry.expiresAtMs <= nowMs && entry.monotonicExpiresAtMs <= monotonicNow) {
        this.remove(key, entry);
        removed++;
      }
    }
    return removed;
  }

  get size(): number {
    return this.entries.size;
  }

  usage(): ReplayStoreUsage {
    return {
      records: this.entries.size,
      maxRecords: this.maxEntries,
      refusedFull: this.refusedFullCount,
      refusedQuota: this.refusedQuotaCount,
      lastFullAtMs: this.lastFullAtMs,
    };
  }

  /**
   * Drops expired records from the oldest end (Map order is recording order, which for HOLA lines is
   * close to expiry order): O(1) per record freed, so a full store can take a new record at once.
   */
  private dropExpiredOldest(nowMs: number): void {
    const monotonicNow = this.monotonicNowMs?.() ?? 0;
    for (const [key, entry] of this.entries) {
      if (entry.expiresAtMs > nowMs || entry.monotonicExpiresAtMs > monotonicNow) return;
      this.remove(key, entry);
    }
  }

  private sweepIfDue(nowMs: number): void {
    // A clock set back makes the last sweep look ahead: due at once, not when the clock catches up.
    const since = nowMs - this.lastSweepMs;
    if (since >= this.sweepIntervalMs || since < 0) this.sweep(nowMs);
  }

  /** Removes `key`'s record (a login undoing the challenge record whose session could not be stored). */
  forget(key: string): void {
    const entry = this.entries.get(key);
    if (entry) this.remove(key, entry);
  }

  private remove(key: string, entry: ReplayEntry): void {
    this.entries.delete(key);
    if (entry.owner === undefined) return;
    const left = (this.perOwner.get(entry.owner) ?? 1) - 1;
    if (left > 0) this.perOwner.set(entry.owner, left);
    else this.perOwner.delete(entry.owner);
  }
}
