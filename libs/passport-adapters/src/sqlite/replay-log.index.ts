/**
 * The in-memory index of the SQLite replay log (SqliteReplayStore): each key's newest record (its row
 * id, first seen, expiry), in the order the keys were last set, which for HOLA lines is close to
 * expiry order.
 *
 * Compact by design, since it holds every live record of the store (1 000 000 at the default cap): a
 * Map from the key to a slot, and the slot's three numbers in typed arrays. A record as an object of
 * three numbers cost ~80 bytes more than the key and its Map entry; a slot costs 24.
 */

/** A record of the log as the index knows it. */
export interface LoggedRecord {
  readonly id: number;
  readonly firstSeenAtMs: number;
  readonly expiresAtMs: number;
}

const INITIAL_SLOTS = 1024;

export class ReplayLogIndex {
  private readonly slots = new Map<string, number>();
  private ids = new Float64Array(INITIAL_SLOTS);
  private firstSeen = new Float64Array(INITIAL_SLOTS);
  private expires = new Float64Array(INITIAL_SLOTS);
  /** Slots given back by deleted keys, reused before new ones. */
  private readonly freed: number[] = [];
  /** Slots ever handed out (the next new one). */
  private used = 0;

  get size(): number {
    return this.slots.size;
  }

  get(key: string): LoggedRecord | undefined {
    const slot = this.slots.get(key);
    if (slot === undefined) return undefined;
    return { id: this.ids[slot], firstSeenAtMs: this.firstSeen[slot], expiresAtMs: this.expires[slot] };
  }

  /** Sets `key`'s record and moves the key to the end of the order. */
  set(key: string, { id, firstSeenAtMs, expiresAtMs }: LoggedRecord): void {
    let slot = this.slots.get(key);
    if (slot === undefined) slot = this.takeSlot();
    else this.slots.delete(key);
    this.ids[slot] = id;
    this.firstSeen[slot] = firstSeenAtMs;
    this.expires[slot] = expiresAtMs;
    this.slots.set(key, slot);
  }

  /**
   * Sets `key`'s record as read from the log, but keeps the times of a record of it that expires later
   * (one kept after the log went back, which the log lost: the key's older row must not shorten it). The
   * row's id is taken either way: it is the row deleted when the record is replaced.
   */
  learn(key: string, record: LoggedRecord): void {
    const slot = this.slots.get(key);
    if (slot !== undefined && this.expires[slot] > record.expiresAtMs) {
      this.ids[slot] = record.id;
      return;
    }
    this.set(key, record);
  }

  /**
   * Marks every record as no longer in the log (id 0, which no row has): after the log went back, the
   * ids of the records it lost may be given to other keys' rows.
   */
  forgetIds(): void {
    this.ids.fill(0);
  }

  /** Forgets `key`'s record if it has expired at `nowMs` (a live record is never dropped). */
  forgetIfExpired(key: string, nowMs: number): void {
    const slot = this.slots.get(key);
    if (slot !== undefined && this.expires[slot] <= nowMs) this.release(key, slot);
  }

  /** Drops expired records from the oldest end, up to the first live one: O(1) for each dropped. */
  forgetExpiredOldest(nowMs: number): void {
    for (const [key, slot] of this.slots) {
      if (this.expires[slot] > nowMs) return;
      this.release(key, slot);
    }
  }

  /** Drops every expired record (a scan of the whole index). */
  forgetExpired(nowMs: number): void {
    for (const [key, slot] of this.slots) if (this.expires[slot] <= nowMs) this.release(key, slot);
  }

  clear(): void {
    this.slots.clear();
    this.freed.length = 0;
    this.used = 0;
  }

  private release(key: string, slot: number): void {
    this.slots.delete(key);
    this.freed.push(slot);
  }

  private takeSlot(): number {
    const reused = this.freed.pop();
    if (reused !== undefined) return reused;
    if (this.used === this.ids.length) this.grow();
    return this.used++;
  }

  /** Half again as many slots (a doubling would leave up to half of a large index's arrays unused). */
  private grow(): void {
    const capacity = Math.ceil(this.ids.length * 1.5);
    const widen = (from: Float64Array) => {
      const to = new Float64Array(capacity);
      to.set(from);
      return to;
    };
    this.ids = widen(this.ids);
    this.firstSeen = widen(this.firstSeen);
    this.expires = widen(this.expires);
  }
}
