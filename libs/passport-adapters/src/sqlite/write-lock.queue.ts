/**
 * Writes that wait for another connection's write lock on timers instead of on the calling thread.
 *
 * better-sqlite3 is synchronous: with `busy_timeout` a write waits for the lock on the event loop, so a
 * process paused in a commit, or an operator's shell inside `BEGIN IMMEDIATE`, stalled every request of
 * every other process for up to the busy timeout per write attempt (logins, logouts, quota takes).
 * Here a write is tried without waiting; while the lock is held it waits in a FIFO queue, tried again on
 * a timer (1, 2, 4 … 50 ms apart) with the event loop free, and fails closed with SQLite's own
 * SQLITE_BUSY once it has waited the busy timeout, as a write waiting on the thread would. Later writes
 * queue behind earlier ones, so none overtakes another that waits.
 */
import { performance } from 'node:perf_hooks';

/** The first wait after a busy lock (ms); each further wait doubles, up to the last. */
export const LOCK_RETRY_MIN_MS = 1;
export const LOCK_RETRY_MAX_MS = 50;
/**
 * Writes waiting at most: past it a write fails at once (SQLITE_BUSY) rather than holding one more
 * request's memory for seconds (each waiting write is a request in flight).
 */
export const MAX_WAITING_WRITES = 10_000;
/**
 * Waiting writes run in one event-loop turn at most, once the lock is free: 10 000 of them in one turn
 * stopped the event loop ~0.6 s (a review); the rest run at the next turns, still before newer writes.
 */
export const WRITES_PER_TURN = 256;

/**
 * Runs `work` unless another connection holds the write lock (undefined then). `lastTry`: the lock held
 * then throws SQLite's SQLITE_BUSY instead.
 */
export type TryWrite = <T>(work: () => T, lastTry: boolean) => { readonly result: T } | undefined;

interface WaitingWrite {
  readonly work: () => unknown;
  readonly since: number;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/** SQLite's own answer for a lock held too long, as a write that waited on the thread gets it. */
export class SqliteLockBusyError extends Error {
  override readonly name = 'SqliteLockBusyError';
  readonly code = 'SQLITE_BUSY';
  constructor(reason: string) {
    super(`database is locked (${reason})`);
  }
}

export class WriteLockQueue {
  private waiting: WaitingWrite[] = [];
  private head = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private retryMs = LOCK_RETRY_MIN_MS;

  constructor(
    private readonly tryWrite: TryWrite,
    /** How long a write may wait for the lock (ms): the database's busy timeout. */
    private readonly waitMs: number,
    /** Told of a write refused because `maxWaiting` writes wait already (noted for health). */
    private readonly onRefused: (error: SqliteLockBusyError) => void = () => undefined,
    private readonly maxWaiting = MAX_WAITING_WRITES,
  ) {}

  /** Writes waiting for the lock now. */
  get size(): number {
    return this.waiting.length - this.head;
  }

  /** `work`'s result once it has run with the lock free (at once when it is free and nothing waits). */
  run<T>(work: () => T): Promise<T> {
    if (this.size === 0) {
      try {
        const done = this.tryWrite(work, this.waitMs <= 0);
        if (done) return Promise.resolve(done.result);
      } catch (error) {
        return Promise.reject(error);
      }
    } else if (this.size >= this.maxWaiting) {
      const refused = new SqliteLockBusyError(`${this.maxWaiting} writes already wait for the lock`);
      this.onRefused(refused);
      return Promise.reject(refused);
    }
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ work, since: performance.now(), resolve: resolve as (r: unknown) => void, reject });
      this.timer ??= setTimeout(this.retry, this.retryMs);
    });
  }

  /**
   * Runs every waiting write now, on the calling thread (`waitOnThread` runs one the way a write that
   * waits with `busy_timeout` does, waiting at most `waitMs`): the database is about to close, and what
   * was asked is written. Each write waits only what is left of its busy timeout: given the whole of it
   * each, the writes waiting behind a lock still held stopped the close for the busy timeout apiece
   * (5 s times the requests in flight).
   */
  drain(waitOnThread: (work: () => unknown, waitMs: number) => unknown): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.size > 0) {
      const write = this.take();
      const left = Math.max(0, Math.ceil(this.waitMs - (performance.now() - write.since)));
      try {
        write.resolve(waitOnThread(write.work, left));
      } catch (error) {
        write.reject(error);
      }
    }
  }

  private readonly retry = (): void => {
    this.timer = undefined;
    for (let written = 0; this.size > 0; written++) {
      if (written === WRITES_PER_TURN) {
        clearTimeout(this.timer);
        this.timer = setTimeout(this.retry, 0);
        return;
      }
      const write = this.waiting[this.head];
      const lastTry = performance.now() - write.since >= this.waitMs;
      let done: { readonly result: unknown } | undefined;
      try {
        done = this.tryWrite(write.work, lastTry);
      } catch (error) {
        this.take().reject(error);
        continue;
      }
      if (done === undefined) {
        this.retryMs = Math.min(this.retryMs * 2, LOCK_RETRY_MAX_MS);
        clearTimeout(this.timer); // one set by a write asked from inside a write's work
        this.timer = setTimeout(this.retry, this.retryMs);
        return;
      }
      this.take().resolve(done.result);
    }
    this.retryMs = LOCK_RETRY_MIN_MS;
  };

  /** The oldest waiting write, taken off the queue (compacted once half of it is taken). */
  private take(): WaitingWrite {
    const write = this.waiting[this.head++];
    if (this.head === this.waiting.length) {
      this.waiting = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.waiting.length) {
      this.waiting = this.waiting.slice(this.head);
      this.head = 0;
    }
    return write;
  }
}
