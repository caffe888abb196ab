/**
 * Checkpoints a WAL-mode SQLite file from a worker thread with a connection of its own.
 *
 * A checkpoint copies the WAL's pages into the database file and syncs both files. Run by a committing
 * connection (SQLite's auto-checkpoint), all of that blocks the committing thread: on the verify path
 * the event loop stood still for about as long again as the replay records' own CPU (store bench, 200k
 * records held, 10 per commit: wall 101–119 µs per record with CPU 43–49 µs; with this worker, wall 55
 * µs). A PASSIVE checkpoint never blocks writers, so the event loop keeps committing while the worker
 * copies and syncs.
 *
 * When to checkpoint: the worker reads the WAL-index header (the `-shm` file, whose layout SQLite's file
 * format document gives: `mxFrame` at byte 16, `nBackfill` at byte 96, native byte order) to learn how
 * many frames wait, and checkpoints at `thresholdPages`, or after `maxDelayMs` with any waiting (so a
 * quiet server's commits reach the synced database file within that time, where an auto-checkpoint
 * might wait for hours). The header is only a trigger: a misread makes a checkpoint early or late, and
 * the owning connection keeps an auto-checkpoint at a multiple of the threshold as a backstop, so the WAL
 * stays bounded even if this worker stalls or dies.
 *
 * After each of the worker's checkpoints the owner is told (`onCheckpointed`), and copies what was
 * committed while the worker ran (a few hundred frames under load) with a PASSIVE checkpoint of its
 * own. That leaves the WAL wholly copied, and SQLite then writes it from its start again at the next
 * commit. Without that step the WAL never restarts under steady writes (each of the worker's
 * checkpoints lags behind what was committed meanwhile) and grows to the backstop, whose checkpoint runs
 * on the committing thread again. The step also syncs the database file (SQLite syncs it only in a
 * checkpoint that reaches the WAL's end, which under steady writes the worker's never does), so it
 * flushes what the worker copied: about 5 ms on the event loop under the verify bench, where a whole
 * checkpoint took 15–25 ms.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export interface WalCheckpointerOptions {
  /** Frames waiting in the WAL that start a checkpoint. */
  readonly thresholdPages: number;
  /** Longest time a waiting frame waits for a checkpoint (ms). */
  readonly maxDelayMs: number;
  /** How often the worker reads the WAL-index header (ms). */
  readonly pollMs: number;
  /**
   * Told of a checkpoint that failed (the worker retries later, waiting twice as long after each failure
   * in a row, from 20 polls up to a minute). `repeated`: the same failure as the one before, with no
   * checkpoint between (a read-only database fails every retry: log the change, count every one).
   */
  readonly onError?: ((message: string, repeated: boolean) => void) | undefined;
  /** Told on the owner's thread after each checkpoint the worker completed. */
  readonly onCheckpointed?: (() => void) | undefined;
  /**
   * The owner's files (the database, its WAL and -shm; device and inode, when they existed at its
   * open): before each checkpoint the worker looks at the paths (three stat calls), and once one is not
   * the file in use it checkpoints no more (it stops, and `onDetached` is told): the WAL it would copy
   * was deleted or replaced, and its frames would overwrite what another process committed since.
   */
  readonly inUse?:
    | ReadonlyArray<{
        readonly path: string;
        readonly dev?: number | undefined;
        readonly ino?: number | undefined;
      }>
    | undefined;
  /** Told on the owner's thread when the worker stopped because a file in use was detached. */
  readonly onDetached?: (() => void) | undefined;
}

/** Slots of the control array shared with the worker. */
const STARTED = 0;
const STOP = 1;
const DONE = 2;
const CHECKPOINTS = 3;
/** 1 while the worker runs a checkpoint. */
const IN_CHECKPOINT = 4;
/** 1 while the owner checkpoints itself: the worker starts none. */
const HOLD = 5;

/** How long `stop()` waits for a checkpoint in progress to finish before it returns anyway. */
const STOP_WAIT_MS = 10_000;

// The worker's whole program: evaluated as a script (CommonJS), so it needs no file beside the build
// and runs the same from sources under the tests. It loads the driver from the path resolved here.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { openSync, readSync, statSync } = require('node:fs');
const { endianness } = require('node:os');
const { file, driver, thresholdPages, maxDelayMs, pollMs, control, inUse } = workerData;
const ctl = new Int32Array(control);
Atomics.store(ctl, ${STARTED}, 1);
let db, shm;
try {
  if (Atomics.load(ctl, ${STOP}) === 0) {
    const Database = require(driver);
    db = new Database(file, { fileMustExist: true });
    db.pragma('wal_autocheckpoint = 0');
    db.prepare('SELECT count(*) FROM sqlite_master').get(); // opens the WAL index
    shm = openSync(file + '-shm', 'r');
    const header = Buffer.alloc(100);
    const read32 = endianness() === 'LE' ? (at) => header.readUInt32LE(at) : (at) => header.readUInt32BE(at);
    const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
    // The owner's files; one it did not see at its open is taken as this worker sees it now.
    const files = inUse.map((f) => {
      if (f.ino !== undefined) return f;
      const now = statSync(f.path, { throwIfNoEntry: false });
      return now ? { path: f.path, dev: now.dev, ino: now.ino } : f;
    });
    const attached = () => files.every((f) => {
      if (f.ino === undefined) return true;
      const now = statSync(f.path, { throwIfNoEntry: false });
      return now !== undefined && now.ino === f.ino && now.dev === f.dev;
    });
    let waitingSince = 0;
    let backoffUntil = 0;
    let failuresInRow = 0;
    let lastError = null;
    for (;;) {
      Atomics.wait(ctl, ${STOP}, 0, pollMs);
      if (Atomics.load(ctl, ${STOP}) !== 0) break;
      const now = Date.now();
      if (now < backoffUntil) continue;
      try {
        const waiting = readSync(shm, header, 0, 100, 0) === 100 ? read32(16) - read32(96) : 0;
        if (waiting <= 0) { waitingSince = 0; continue; }
        if (waitingSince === 0) waitingSince = now;
        if (waiting < thresholdPages && now - waitingSince < maxDelayMs) continue;
        if (!attached()) { parentPort.postMessage({ detached: true }); break; }
        // Announced before HOLD is read, as the owner sets HOLD before it reads IN_CHECKPOINT: one of
        // the two always sees the other.
        Atomics.store(ctl, ${IN_CHECKPOINT}, 1);
        let result;
        try {
          if (Atomics.load(ctl, ${HOLD}) !== 0) continue;
          result = checkpoint.get();
        } finally {
          Atomics.store(ctl, ${IN_CHECKPOINT}, 0);
          Atomics.notify(ctl, ${IN_CHECKPOINT});
        }
        // Another checkpoint was running (another process's): nothing was copied, try again later.
        if (result.busy !== 0 || result.checkpointed <= 0) continue;
        waitingSince = 0;
        failuresInRow = 0;
        lastError = null;
        Atomics.add(ctl, ${CHECKPOINTS}, 1);
        parentPort.postMessage({ checkpointed: true });
      } catch (error) {
        failuresInRow++;
        backoffUntil = now + Math.min(20 * pollMs * 2 ** Math.min(failuresInRow - 1, 20), 60000);
        const message = String(error && error.message || error);
        parentPort.postMessage({ error: message, repeated: message === lastError });
        lastError = message;
      }
    }
  }
} catch (error) {
  parentPort.postMessage({ error: String(error && error.message || error) });
} finally {
  // The -shm descriptor is never closed: SQLite's WAL locks are POSIX locks on that file, and closing
  // any descriptor of it drops every lock this process holds there, the owner's open connection's
  // included (SQLite's "How To Corrupt An SQLite Database File", 2.2). One descriptor per checkpointer stays
  // open until the process exits (of an unlinked file once the last connection has closed).
  try { if (db) db.close(); } catch {}
  Atomics.store(ctl, ${DONE}, 1);
  Atomics.notify(ctl, ${DONE});
}
`;

export class WalCheckpointer {
  private readonly control = new Int32Array(new SharedArrayBuffer(6 * Int32Array.BYTES_PER_ELEMENT));
  private readonly worker: Worker;

  constructor(file: string, options: WalCheckpointerOptions) {
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        file,
        driver: createRequire(import.meta.url).resolve('better-sqlite3'),
        thresholdPages: options.thresholdPages,
        maxDelayMs: options.maxDelayMs,
        pollMs: options.pollMs,
        control: this.control.buffer,
        inUse: options.inUse ?? [],
      },
    });
    this.worker.on(
      'message',
      (message: { error?: string; repeated?: boolean; checkpointed?: true; detached?: true }) => {
        if (message.checkpointed) options.onCheckpointed?.();
        else if (message.detached) options.onDetached?.();
        else if (message.error !== undefined) options.onError?.(message.error, message.repeated === true);
      },
    );
    this.worker.on('error', (error: Error) => options.onError?.(error.message, false));
    this.worker.unref(); // never what keeps a process alive
  }

  /** Checkpoints the worker has completed (that copied frames; one refused as busy is not counted). */
  get checkpoints(): number {
    return Atomics.load(this.control, CHECKPOINTS);
  }

  /**
   * Runs `work` (the owner's own checkpoint) with no checkpoint of the worker's running: SQLite lets one
   * checkpoint run at a time and answers any other SQLITE_BUSY at once. Waits at most `timeoutMs` for the
   * worker's checkpoint in progress; returns false (without running `work`) if it did not finish.
   */
  whileHeld(work: () => void, timeoutMs: number): boolean {
    Atomics.store(this.control, HOLD, 1);
    try {
      if (Atomics.wait(this.control, IN_CHECKPOINT, 1, timeoutMs) === 'timed-out') return false;
      work();
      return true;
    } finally {
      Atomics.store(this.control, HOLD, 0);
    }
  }

  /**
   * Stops the worker and returns once its connection is closed (waiting out a checkpoint in progress,
   * at most 10 s), so that the owner's connection closes last, as it would without the worker.
   */
  stop(): void {
    if (Atomics.load(this.control, STOP) !== 0) return;
    Atomics.store(this.control, STOP, 1);
    Atomics.notify(this.control, STOP);
    // A worker that has not begun yet sees STOP before it opens anything (it sets STARTED first).
    if (Atomics.load(this.control, STARTED) === 0) return;
    Atomics.wait(this.control, DONE, 0, STOP_WAIT_MS);
  }
}
