/**
 * Review 24: `close()` of a connection whose WAL was deleted runs under a guard child process
 * (close-guard.ts); the parent waits for the child's marker in `os.tmpdir()` with a busy wait on the
 * main thread. A child that cannot come up (here: TMPDIR not writable, as on a read-only root file
 * system with only DATA_DIR a volume; the app uses tmpdir nowhere else) dies at once, yet the parent waits
 * the whole GUARD_READY_MS (10 s) before giving up: a server's shutdown was blocked 10.2 s (past a
 * container runtime's default 10 s stop timeout) and the log called it a "background WAL checkpoint failed".
 * The connection must still not be checkpointed into the file at the path; the close should not wait
 * for a child that is gone.
 *
 * And the connection "left open" then is not safe at all in a process that ends by draining its event
 * loop (an embedder of @passport/adapters, not the API's process.exit): better-sqlite3 closes every open
 * database at the environment's cleanup, SQLite checkpoints there as the last connection, and the
 * detached WAL is copied over the other process's commits (here 200 rows gone, 300 stale rows back),
 * exactly what the guard exists to prevent (close-guard.ts says process.exit skips that close; a
 * natural exit does not).
 *
 * Run in a process of its own: os.tmpdir() reads the real environment, not Jest's copy of it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'passport-close-guard-child-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const SCENARIO = `
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { SqliteDatabase } from '@passport/adapters/sqlite';
const file = process.argv[2];
const digest = () => createHash('sha256').update(readFileSync(file)).digest('hex');
const errors = [];
const a = SqliteDatabase.open(file, { onCheckpointError: (m) => errors.push(m) });
a.statement('PRAGMA wal_checkpoint(TRUNCATE)').all();
a.immediate(() => {
  for (let i = 0; i < 100; i++)
    a.statement('INSERT INTO store_meta (name, value) VALUES (?, ?)').run('a' + i, 'x'.repeat(200));
});
rmSync(file + '-wal');
rmSync(file + '-shm');
execFileSync(process.execPath, ['-e', "const D = require('better-sqlite3'); const d = new D(process.argv[1]); d.pragma('journal_mode = WAL'); d.prepare(\\"INSERT INTO store_meta (name, value) VALUES ('b', 'y')\\").run(); d.close();", file]);
const before = digest();
const started = performance.now();
a.close();
const tookMs = performance.now() - started;
console.log(JSON.stringify({ tookMs, unchanged: digest() === before, errors }));
// and the process ends as a script does: its event loop drained, no process.exit
`;

it('a detached close whose guard child cannot start does not block the thread for 10 s, and copies nothing', () => {
  const result = runScenario(dir);
  expect(result.unchanged).toBe(true);
  expect(result.tookMs).toBeLessThan(3000);
}, 30_000);

it('a detached connection left open copies nothing into the file when the process then ends on its own', () => {
  runScenario(dir);
  const file = join(dir, 'passport.db');
  const db = new Database(file, { readonly: true });
  try {
    const rows = (prefix: string) =>
      db.prepare('SELECT count(*) FROM store_meta WHERE name LIKE ?').pluck().get(`${prefix}%`);
    expect(rows('b')).toBe(1); // the other process's commit is still there
    expect(rows('a')).toBe(0); // the detached WAL's rows never reached the file
  } finally {
    db.close();
  }
}, 30_000);

function runScenario(dir: string): { tookMs: number; unchanged: boolean; errors: string[] } {
  const script = join(process.cwd(), `.close-guard-scenario-${process.pid}.mjs`);
  writeFileSync(script, SCENARIO);
  let out: string;
  try {
    out = execFileSync(process.execPath, [script, join(dir, 'passport.db')], {
      env: { ...process.env, TMPDIR: join(dir, 'no-such-directory') },
      encoding: 'utf8',
    });
  } finally {
    rmSync(script, { force: true });
  }
  return JSON.parse(out.trim().split('\n').pop() as string) as {
    tookMs: number;
    unchanged: boolean;
    errors: string[];
  };
}
