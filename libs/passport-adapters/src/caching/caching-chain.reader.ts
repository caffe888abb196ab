/**
 * A ChainReader decorator that keeps authorised traffic from being chain-bound (docs/protocol.md §8): token
 * reads are cached briefly (found ≤ 5 s, not-found shorter so a fresh mint shows up quickly), account
 * keys and owner pages likewise, concurrent reads of one key share one upstream request (coalescing),
 * and the cache is bounded (oldest entries evicted first). Failures are never cached. Counters feed
 * `/api/metrics` (`chain {reads, cacheHits}`).
 */
import { type ChainReader, type Clock, type PassportRecord, systemClock } from '@passport/core';
import { type CachedPassportPeek, type PageRequest, type PassportReread } from '@passport/core/ports';

export interface CachingChainReaderOptions {
  /** Lifetime of a found passport, owner page or key list. At most 5000 ms (docs/protocol.md §8). */
  readonly ttlMs?: number | undefined;
  /** Lifetime of a not-found result. */
  readonly negativeTtlMs?: number | undefined;
  /** How long a chain time read is reused (carried forward by the clock meanwhile). */
  readonly chainTimeTtlMs?: number | undefined;
  /** Maximum number of cached entries. */
  readonly maxEntries?: number | undefined;
  /**
   * Maximum number of cached listing pages, within `maxEntries`: a page holds up to 100 records, so
   * 10 000 distinct pages held ~600 MB (listing cursors on NEAR, measured).
   */
  readonly maxPageEntries?: number | undefined;
  readonly clock?: Clock | undefined;
}

export interface ChainCacheStats {
  /** Lookups asked of this reader. */
  readonly lookups: number;
  /** Lookups answered from the cache or by joining a request already under way. */
  readonly cacheHits: number;
  /** Requests sent to the underlying reader (the chain). */
  readonly reads: number;
  /** Entries currently cached. */
  readonly entries: number;
}

interface Entry {
  readonly value: unknown;
  /**
   * Where its lifetime counts from (when it was stored, or when its read began): a clock that reads well
   * before this was stepped back, and the entry is stale.
   */
  readonly storedAtMs: number;
  readonly expiresAtMs: number;
}

/**
 * How far a clock may read before an entry's store time, or before the cache's latest reading, and still
 * find it fresh: a clock that jitters
 * back a millisecond must not empty the cache (it doubled the chain reads), one stepped back further
 * must not keep entries for the size of the step (an hour back kept every record for that hour).
 */
const CLOCK_STEP_BACK_TOLERANCE_MS = 1000;

/** Whether `entry` may answer at `nowMs`: within its lifetime, on a clock not stepped back past it. */
const isFresh = (entry: Entry, nowMs: number): boolean =>
  nowMs < entry.expiresAtMs && nowMs >= entry.storedAtMs - CLOCK_STEP_BACK_TOLERANCE_MS;

const MAX_TTL_MS = 5000;

export class CachingChainReader implements ChainReader, CachedPassportPeek, PassportReread {
  /** Records, keys, owner pages and the chain time; listing pages apart (`pages`), each Map in the order entries were stored. */
  private readonly cache = new Map<string, Entry>();
  private readonly pages = new Map<string, Entry>();
  /** The latest chain time served: chain time never goes back (chainTimeMs). */
  private latestChainMs = 0;
  private readonly inFlight = new Map<string, Promise<unknown>>();
  /**
   * The latest clock reading taken: a reading more than the tolerance before it is a clock stepped back,
   * and every entry is then stale (docs/protocol.md §8), not only those stored within the step's last
   * second (an entry stored 4 s before a step of 2 s read fresh and was kept 2 s past its 5 s; a review).
   */
  private latestNowMs = Number.NEGATIVE_INFINITY;
  /** Re-reads under way (`rereadPassport`), by key; at most one per key. */
  private readonly rereads = new Map<string, Promise<PassportRecord | null>>();
  /** How long a found record stays cached (at most 5 s): caches derived from its records live no longer. */
  readonly ttlMs: number;
  private readonly negativeTtlMs: number;
  private readonly chainTimeTtlMs: number;
  private readonly maxEntries: number;
  private readonly maxPageEntries: number;
  private readonly clock: Clock;
  private counters = { lookups: 0, cacheHits: 0, reads: 0 };

  constructor(
    private readonly inner: ChainReader,
    opts: CachingChainReaderOptions = {},
  ) {
    this.ttlMs = Math.min(opts.ttlMs ?? MAX_TTL_MS, MAX_TTL_MS);
    this.negativeTtlMs = Math.min(opts.negativeTtlMs ?? 1000, this.ttlMs);
    this.chainTimeTtlMs = Math.min(opts.chainTimeTtlMs ?? 1000, this.ttlMs);
    this.maxEntries = Math.max(1, opts.maxEntries ?? 10_000);
    this.maxPageEntries = Math.max(1, Math.min(opts.maxPageEntries ?? 256, this.maxEntries));
    this.clock = opts.clock ?? systemClock;
  }

  get contractId(): string {
    return this.inner.contractId;
  }

  /** The underlying reader (for health checks that must reach the chain). */
  get upstream(): ChainReader {
    return this.inner;
  }

  getPassport(tokenId: string): Promise<PassportRecord | null> {
    return this.cached(
      `t|${tokenId}`,
      () => this.inner.getPassport(tokenId),
      (v) => (v === null ? this.negativeTtlMs : this.ttlMs),
      (v) => v !== null,
    );
  }

  /** The fresh cached answer of `getPassport`, on the calling stack; undefined when it must be read. */
  peekPassport(tokenId: string): PassportRecord | null | undefined {
    const hit = this.cache.get(`t|${tokenId}`);
    if (hit === undefined || !isFresh(hit, this.nowMs())) return undefined;
    // Counted as getPassport counts an answer from the cache (a miss is counted by the getPassport that follows).
    this.counters.lookups++;
    this.counters.cacheHits++;
    return hit.value as PassportRecord | null;
  }

  /**
   * `getPassport` past the cache: the cached answer is dropped and the chain asked again (a read already
   * under way that began before is not joined: it may bring the answer being doubted).
   */
  rereadPassport(tokenId: string): Promise<PassportRecord | null> {
    const key = `t|${tokenId}`;
    // Doubts raised while a re-read is under way are answered by it: N requests refused at once cost
    // one more read, not N (each would also hold a chain read reserved for logged-in holders).
    const pending = this.rereads.get(key);
    if (pending) return pending;
    this.cache.delete(key);
    this.inFlight.delete(key);
    const read = this.getPassport(tokenId).finally(() => this.rereads.delete(key));
    this.rereads.set(key, read);
    return read;
  }

  listPassportsByOwner(accountId: string, page: PageRequest): Promise<PassportRecord[]> {
    return this.cached(
      `o|${page.fromIndex}|${page.limit}|${accountId}`,
      () => this.inner.listPassportsByOwner(accountId, page),
      (v) => (v.length === 0 ? this.negativeTtlMs : this.ttlMs),
      (v) => v.length > 0,
    ).then((list) => [...list]);
  }

  listPassports(page: PageRequest): Promise<PassportRecord[]> {
    return this.cached(
      `l|${page.fromIndex}|${page.limit}`,
      () => this.inner.listPassports(page),
      () => this.negativeTtlMs,
    ).then((list) => [...list]);
  }

  getAccountKeys(accountId: string): Promise<Uint8Array[]> {
    return this.cached(
      `k|${accountId}`,
      () => this.inner.getAccountKeys(accountId),
      (v) => (v.length === 0 ? this.negativeTtlMs : this.ttlMs),
      (v) => v.length > 0,
    ).then((keys) => keys.map((k) => new Uint8Array(k)));
  }

  /**
   * The chain time, read at most once per `chainTimeTtlMs` and carried forward by the clock since that
   * read: chain time moves as the clock does (on the ledger it is the clock), and a reading served as
   * it was let a passport verify up to a second past its `not_after`.
   */
  chainTimeMs(): Promise<number> {
    return this.cached(
      'time',
      () => this.inner.chainTimeMs().then((chainMs) => ({ chainMs, readAtMs: this.clock.nowMs() })),
      () => this.chainTimeTtlMs,
    ).then(({ chainMs, readAtMs }) => {
      const nowMs = this.clock.nowMs();
      // Never earlier than a time served before (a node behind the last, a lagging backend of a balanced
      // RPC, a probe's node an hour back, made a passport past its not_after verify again), but a time
      // served before counts only up to the local clock: one block time a year ahead (a review) would
      // otherwise hold every passport not live for the process's life.
      const served = Math.max(Math.min(this.latestChainMs, nowMs), chainMs + Math.max(0, nowMs - readAtMs));
      this.latestChainMs = served;
      return served;
    });
  }

  stats(): ChainCacheStats {
    return { ...this.counters, entries: this.cache.size + this.pages.size };
  }

  /** Drops every cached entry (in-flight requests still complete). */
  clear(): void {
    this.cache.clear();
    this.pages.clear();
  }

  /**
   * `fromReadStart(value)`: whether the value's time in the cache counts from when the read began (a
   * found passport, keys, an owner's passports: what a revocation, transfer or key removal changes, so
   * never kept longer than the TTL after the chain answered) rather than from the answer (a
   * not-found, chain time, a listing page: counted from the start, a node slower than their 1 s would
   * never be served from the cache).
   */
  private async cached<T>(
    key: string,
    load: () => Promise<T>,
    ttlOf: (value: T) => number,
    fromReadStart: (value: T) => boolean = () => false,
  ): Promise<T> {
    this.counters.lookups++;
    const now = this.nowMs();
    const entries = isPageKey(key) ? this.pages : this.cache;
    const hit = entries.get(key);
    if (hit) {
      if (isFresh(hit, now)) {
        this.counters.cacheHits++;
        return hit.value as T;
      }
      entries.delete(key);
    }
    const pending = this.inFlight.get(key);
    if (pending) {
      this.counters.cacheHits++;
      return pending as Promise<T>;
    }
    this.counters.reads++;
    // A read superseded by a newer one (rereadPassport) neither clears nor fills the newer one's place.
    const request: Promise<T> = load().then(
      (value) => {
        if (this.inFlight.get(key) !== request) return value;
        this.inFlight.delete(key);
        // Its store time is where its lifetime counts from: a clock stepped back an hour while a found
        // passport was read, the read's start as its end's base and the answer's time as its store time,
        // kept the passport for the hour.
        const storedAtMs = fromReadStart(value) ? now : this.nowMs();
        this.store(key, value, storedAtMs, storedAtMs + ttlOf(value));
        return value;
      },
      (error: unknown) => {
        if (this.inFlight.get(key) === request) this.inFlight.delete(key);
        throw error;
      },
    );
    this.inFlight.set(key, request);
    return request;
  }

  /** The clock's reading; one stepped back past the tolerance from the latest empties the cache. */
  private nowMs(): number {
    const now = this.clock.nowMs();
    // Steps within the tolerance add up (two of 0.6 s are one of 1.2 s): compared with the latest reading.
    if (now < this.latestNowMs - CLOCK_STEP_BACK_TOLERANCE_MS) {
      this.clear();
      this.latestNowMs = now;
    } else if (now > this.latestNowMs) this.latestNowMs = now;
    return now;
  }

  private store(key: string, value: unknown, storedAtMs: number, expiresAtMs: number): void {
    const page = isPageKey(key);
    const entries = page ? this.pages : this.cache;
    const max = page ? this.maxPageEntries : this.maxEntries - Math.min(this.pages.size, this.maxPageEntries);
    // Map keeps insertion order: deleting first moves the key to the end, so the first key is the oldest.
    const now = this.nowMs();
    entries.delete(key);
    entries.set(key, { value, storedAtMs, expiresAtMs });
    // Expired entries go from the oldest end, up to the first live one (stored entries live ≤ 5 s, so the
    // rest expire soon): else stale listing pages keep a replaced ledger's records alive for good.
    for (const [oldestKey, oldest] of entries) {
      if (isFresh(oldest, now)) break;
      entries.delete(oldestKey);
    }
    if (entries.size <= max) return;
    // Over the cap: every expired entry goes before a live one does (else a live oldest entry shields
    // the expired ones behind it, and a found passport is read again within its 5 s).
    for (const [key, entry] of entries) if (!isFresh(entry, now)) entries.delete(key);
    for (const oldestKey of entries.keys()) {
      if (entries.size <= max) break;
      entries.delete(oldestKey);
    }
  }
}

/**
 * Keys of listing pages, bounded apart: anyone can ask for any page, and a page holds up to 100 records.
 * An owner's pages stay with single records (login by account id reads them; 256 listing pages would
 * push them out within a millisecond).
 */
function isPageKey(key: string): boolean {
  return key.startsWith('l|');
}
