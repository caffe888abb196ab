/**
 * @module adapters/memory/memory-replay.store
 * Single-instance ReplayStore on a Map. `recordIfAbsent` checks and records without awaiting in
 * between, so on one event loop it is atomic: of N concurrent calls with one key exactly one records.
 *
 * Memory is capped (`maxEntries`). When full, expired records go first (a full sweep runs at most
 * once per `sweepIntervalMs` of store time, so a flood cannot make every insert O(n)); if still full,
 * the oldest live record is evicted. Trade-off: under a flood of distinct keys larger than the cap,
 * the oldest nonces lose their replay protection before they expire (the service keeps answering
 * instead of failing closed). `evictedLive` counts these evictions so operators can size the cap:
 * with a 24 h HOLA window it must exceed the peak number of distinct nonces per window. Deployments
 * that cannot accept this use the SQLite or Redis adapter, which are bounded only by disk/memory.
 */
import { type RecordOutcome, type ReplayStore } from '../../ports/replay-store.port.js';
import { positiveInteger } from './capacity.js';

export interface MemoryReplayStoreOptions {
  /** Maximum records held (default 100 000). */
  readonly maxEntries?: number;
  /** Minimum store time between full sweeps triggered by a full store (default 1000 ms). */
  readonly sweepIntervalMs?: number;
}

/** The outcome every successful record shares (it is immutable). */
const RECORDED: RecordOutcome = Object.freeze({ recorded: true });

interface ReplayEntry {
  readonly firstSeenAtMs: number;
  readonly expiresAtMs: number;
}

export class MemoryReplayStore implements ReplayStore {
  readonly maxEntries: number;
  private readonly sweepIntervalMs: number;
  /** Map insertion order = order of recording (re-recording after expiry moves a key to the end). */
  private readonly entries = new Map<string, ReplayEntry>();
  private lastSweepMs = Number.NEGATIVE_INFINITY;
  private evictedLiveCount = 0;

  constructor(options: MemoryReplayStoreOptions = {}) {
    this.maxEntries = positiveInteger(options.maxEntries ?? 100_000, 'maxEntries');
    this.sweepIntervalMs = options.sweepIntervalMs ?? 1000;
  }

  async recordIfAbsent(key: string, nowMs: number, expiresAtMs: number): Promise<RecordOutcome> {
    // No await from here to the end: the check and the record are one step on the event loop.
    const existing = this.entries.get(key);
    if (existing && existing.expiresAtMs > nowMs)
      return { recorded: false, firstSeenAtMs: existing.firstSeenAtMs };
    if (existing) this.entries.delete(key);
    else this.makeRoom(nowMs);
    this.entries.set(key, { firstSeenAtMs: nowMs, expiresAtMs });
    return RECORDED;
  }

  /** Removes expired records; returns how many were removed. */
  sweep(nowMs: number): number {
    this.lastSweepMs = nowMs;
    let removed = 0;
    for (const [key, entry] of this.entries) {
      if (entry.expiresAtMs <= nowMs) {
        this.entries.delete(key);
        removed++;
      }
    }
    return removed;
  }

  get size(): number {
    return this.entries.size;
  }

  /** How many unexpired records were evicted because the store was full. */
  get evictedLive(): number {
    return this.evictedLiveCount;
  }

  private makeRoom(nowMs: number): void {
    if (this.entries.size < this.maxEntries) return;
    if (nowMs - this.lastSweepMs >= this.sweepIntervalMs) this.sweep(nowMs);
    while (this.entries.size >= this.maxEntries) {
      const [oldestKey, oldest] = this.entries.entries().next().value as [string, ReplayEntry];
      this.entries.delete(oldestKey);
      if (oldest.expiresAtMs > nowMs) this.evictedLiveCount++;
    }
  }
}
