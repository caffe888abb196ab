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
 * Only a detached connection's close pays for this (a child process: ~50–100 ms). If the child does not
 * hold the file within `GUARD_READY_MS`, the connection is left open instead (never closed: process.exit,
 * the server's way out, skips better-sqlite3's close at exit), and `onError` is told.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';

/** The longest the close waits for the child to hold the file (ms). */
const GUARD_READY_MS = 10_000;

// The child: opens the file at its path (never creating one), reads, says so by creating the marker,
// and waits until its stdin ends (the parent gone) or it is killed, never closing the connection.
const GUARD_SOURCE = `
const { writeFileSync } = require('node:fs');
const [file, driver, marker] = process.argv.slice(1);
const Database = require(driver);
const db = new Database(file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.prepare('SELECT count(*) FROM sqlite_master').get();
globalThis.guard = db;
writeFileSync(marker, '');
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
  const marker = join(tmpdir(), `passport-close-guard-${process.pid}-${randomBytes(6).toString('hex')}`);
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
    if (!existsSync(marker)) {
      leftOpen.add(db);
      onError?.(
        `the database file's WAL was detached; no process could guard its close within ${GUARD_READY_MS} ms, so the connection is left open until the process exits`,
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
