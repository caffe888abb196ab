/**
 * Closing a connection whose WAL (or -shm) was deleted or replaced under it, without the checkpoint
 * SQLite makes at close.
 *
 * When the last connection of a process to a WAL-mode file closes, SQLite tries an EXCLUSIVE lock on the
 * database file; if no other process has the file open it gets it, copies the connection's WAL into
 * the file and deletes the WAL and -shm at their paths. For a connection whose WAL was deleted under it,
 * that WAL holds stale frames: copied, they overwrite the pages other processes committed since through
 * the new WAL at the path (a probe: the file reported damaged, and a restarted server verified lines
 * again). better-sqlite3 does not expose SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, and no connection of this
 * process can hold the lock for it: every connection of a process to the same file shares the detached
 * -shm (SQLite's unix VFS keeps it per inode), so another one reads the new WAL through the old index
 * (SQLITE_IOERR_SHORT_READ, or worse: it becomes the last to close). So another process holds it: a
 * child opens the file at the path (a reader as any other, on the WAL and -shm there), reads once,
 * which leaves it a SHARED lock on the database file for as long as it is open, and stays; the
 * connection is closed (its EXCLUSIVE attempt fails: no checkpoint, nothing deleted), then the child is
 * killed without closing (a reader that dies leaves nothing to recover).
 *
 * Only a detached connection's close pays for this (a child process: ~0.3–0.9 s). The child says it holds
 * the file, or that it cannot, by a marker beside the database (the directory the stores write anyway;
 * a review: in os.tmpdir(), unwritable on a read-only root with only DATA_DIR a volume, the child died
 * and the close waited 10 s). If the child cannot hold the file, or says nothing within `GUARD_READY_MS`,
 * the connection is left open instead and `onError` is told (with DETACHED_CLOSE_PROBLEM first). Left
 * open, it is safe only in a process that ends with process.exit (the server's way out), which skips
 * better-sqlite3's close at exit; a process that ends by draining its event loop closes it then, and
 * the stale WAL is copied into the file (a review): an embedder whose guard cannot start must exit so.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import type Database from 'better-sqlite3';
import { DETACHED_CLOSE_PROBLEM } from './detached-close.problem.js';

/** The longest the close waits for the child to hold the file (ms). */
const GUARD_READY_MS = 5_000;

// The child: opens the file at its path (never creating one), reads, says so by creating the marker,
// and waits until its stdin ends (the parent gone) or it is killed, never closing the connection.
const GUARD_SOURCE = `
const { writeFileSync } = require('node:fs');
const [file, driver, marker] = process.argv.slice(1);
try {
  const Database = require(driver);
  const db = new Database(file, { fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  db.prepare('SELECT count(*) FROM sqlite_master').get();
  globalThis.guard = db;
  writeFileSync(marker, 'held');
} catch (error) {
  try { writeFileSync(marker, 'failed: ' + String(error && error.message || error).slice(0, 200)); } catch {}
  process.exit(1);
}
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
`;

/** Connections left open because no guard came up: kept referenced, so that no collector closes them. */
const leftOpen = new Set<Database.Database>();

export function closeUnderGuard(
  file: string,
  db: Database.Database,
  onError: ((message: string) => void) | undefined,
): void {
  const marker = join(
    dirname(file),
    `.${basename(file)}.close-guard-${process.pid}-${randomBytes(6).toString('hex')}`,
  );
  let child: ReturnType<typeof spawn> | undefined;
  try {
    child = spawn(
      process.execPath,
      ['-e', GUARD_SOURCE, file, createRequire(import.meta.url).resolve('better-sqlite3'), marker],
      { stdio: ['pipe', 'ignore', 'ignore'] },
    );
    child.on('error', () => undefined);
    const pause = new Int32Array(new SharedArrayBuffer(4));
    const deadline = performance.now() + GUARD_READY_MS;
    while (!existsSync(marker) && performance.now() < deadline) Atomics.wait(pause, 0, 0, 5);
    // The marker is written whole by one call: read it once it exists (a moment for a slow write).
    let said = existsSync(marker) ? readFileSync(marker, 'utf8') : '';
    if (said === '' && existsSync(marker)) {
      Atomics.wait(pause, 0, 0, 20);
      said = readFileSync(marker, 'utf8');
    }
    if (said !== 'held') {
      leftOpen.add(db);
      onError?.(
        `${DETACHED_CLOSE_PROBLEM} the WAL of ${file} was deleted or replaced; no process could hold the file for its close (${said === '' ? `no answer within ${GUARD_READY_MS} ms` : said}), so the connection is left open until the process exits (process.exit: a drained event loop would close it and copy the stale WAL)`,
      );
      return;
    }
    db.close();
  } finally {
    child?.kill('SIGKILL');
    child?.stdin?.destroy();
    child?.unref();
    rmSync(marker, { force: true });
  }
}
