/**
 * A probe (SQLite chaos soak, two processes on one DATA_DIR): `passport.db-wal` and `-shm` deleted while
 * process A had commits not yet checkpointed; process B restarted (a new WAL), committed, and closed.
 * A's stale WAL was then copied into the file at the path over B's pages, by A's checkpoint worker when
 * A resumed and by A's own close (SQLite checkpoints at the last close of a process when no other
 * process has the file open): B's health said the file was damaged, and a restarted A verified B's
 * lines again. A connection whose WAL is detached must never copy it into the file at the path.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteDatabase } from '@passport/adapters/sqlite';

let dir: string;
let file: string;
const opened: SqliteDatabase[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'passport-detached-wal-'));
  file = join(dir, 'passport.db');
});
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
  rmSync(dir, { recursive: true, force: true });
});

const digest = (): string => createHash('sha256').update(readFileSync(file)).digest('hex');

function commitRows(db: SqliteDatabase, prefix: string, n: number): void {
  db.immediate(() => {
    for (let i = 0; i < n; i++)
      db.statement('INSERT INTO store_meta (name, value) VALUES (?, ?)').run(
        `${prefix}${i}`,
        'x'.repeat(200),
      );
  });
}

/** Another process (as a restarted server): opens the file at its path, commits rows, closes (checkpointing them). */
function otherProcessCommits(prefix: string): void {
  const script = `const D = require('better-sqlite3'); const d = new D(process.argv[1]);
    d.pragma('journal_mode = WAL');
    const insert = d.prepare('INSERT INTO store_meta (name, value) VALUES (?, ?)');
    d.transaction(() => { for (let i = 0; i < 200; i++) insert.run(process.argv[2] + i, 'y'.repeat(200)); })();
    d.close();`;
  execFileSync(process.execPath, ['-e', script, file, prefix], { cwd: process.cwd() });
}

function rowsWith(prefix: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare('SELECT count(*) FROM store_meta WHERE name LIKE ?')
      .pluck()
      .get(`${prefix}%`) as number;
  } finally {
    db.close();
  }
}

it('closing a connection whose WAL was deleted leaves the file at the path as the other process left it', () => {
  const a = SqliteDatabase.open(file);
  opened.push(a);
  commitRows(a, 'early', 50);
  a.statement('PRAGMA wal_checkpoint(TRUNCATE)').all();
  commitRows(a, 'a', 300); // in A's WAL only

  rmSync(`${file}-wal`);
  rmSync(`${file}-shm`);
  otherProcessCommits('b');
  const before = digest();

  a.close();

  expect(digest()).toBe(before);
  expect(rowsWith('b')).toBe(200);
  expect(rowsWith('a')).toBe(0);
  const check = new Database(file);
  expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
  check.close();
});

it('the background checkpointer copies nothing from a detached WAL, and the connection then closes without a checkpoint', async () => {
  const a = SqliteDatabase.open(file, { checkpointInBackground: true });
  opened.push(a);
  commitRows(a, 'early', 50);
  // The worker checkpoints a quiet WAL within WAL_CHECKPOINT_MAX_DELAY_MS (1 s).
  const deadline = Date.now() + 5000;
  while ((a.backgroundCheckpoints ?? 0) === 0 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 25));
  expect(a.backgroundCheckpoints).toBeGreaterThan(0);
  commitRows(a, 'a', 300);
  rmSync(`${file}-wal`);
  rmSync(`${file}-shm`);
  otherProcessCommits('b');
  const before = digest();

  await new Promise((resolve) => setTimeout(resolve, 1600)); // past the worker's delay
  expect(digest()).toBe(before);
  expect(() => commitRows(a, 'late', 1)).toThrow(/deleted|replaced/);

  a.close();
  expect(digest()).toBe(before);
  expect(rowsWith('b')).toBe(200);
  expect(rowsWith('a')).toBe(0);
});
