/**
 * A probe (SQLite chaos soak, two processes on one DATA_DIR): `passport.db-wal` and `-shm` deleted under
 * both processes, then only one of them restarted (as a supervisor restarts a crashed instance). The
 * restarted process opens the file with a new WAL; a logout there answers 200. The process still
 * running on the deleted WAL refuses every write (health: "database file deleted while open; restart
 * the server"), but its session reads go on from the deleted WAL: the logged-out token was answered
 * 200 by `GET /api/me/identity` there for as long as it ran. A detached database must not vouch for a
 * session either: the read fails (the JWT tier answers 503), as the writes do.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sampleSessionRecord } from '@passport/core/testing';
import { SqliteDatabase, SqliteSessionStore } from '@passport/adapters/sqlite';
import { ATTACHMENT_CHECK_MS } from '../../libs/passport-adapters/src/sqlite/sqlite-session.store.js';

let dir: string;
const opened: SqliteDatabase[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'passport-detached-read-'));
});
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
  rmSync(dir, { recursive: true, force: true });
});

it('a session closed by a process that opened the file anew is not read as open by one still on the deleted WAL', async () => {
  const file = join(dir, 'passport.db');
  const a = SqliteDatabase.open(file);
  opened.push(a);
  const sessionsA = new SqliteSessionStore(a, { sweepIntervalMs: 0 });
  const session = sampleSessionRecord(1, { createdAtMs: Date.now(), expiresAtMs: Date.now() + 600_000 });
  await sessionsA.create(session);
  expect(sessionsA.getSync(session.sessionId)).toMatchObject({ closedAtMs: null });
  // Copied into the file, as the server's checkpointer does within a second of a commit.
  a.statement('PRAGMA wal_checkpoint(TRUNCATE)').all();

  rmSync(`${file}-wal`);
  rmSync(`${file}-shm`);

  // The restarted process (another process: within one, SQLite shares the -shm of an inode between
  // connections): it opens the file at its path with a WAL and -shm of its own, and logs the session out.
  const script = `const D = require('better-sqlite3'); const d = new D(process.argv[1]);
    d.pragma('journal_mode = WAL');
    const r = d.prepare("UPDATE sessions SET closed_at_ms = ?, close_reason = 'logout' WHERE session_id = ? AND closed_at_ms IS NULL").run(Date.now(), process.argv[2]);
    d.close(); process.stdout.write(String(r.changes));`;
  const changes = execFileSync(process.execPath, ['-e', script, file, session.sessionId], {
    cwd: process.cwd(),
  }).toString();
  expect(changes).toBe('1');

  // Past the files' check interval (a read may rely on the deleted WAL that long, as documented), in a
  // later turn (the read cache is per turn). Without the wait the test failed on a fast machine: the
  // other process had run within the interval, and the read came from the deleted WAL by design.
  await new Promise((resolve) => setTimeout(resolve, ATTACHMENT_CHECK_MS + 20));
  let read: unknown;
  try {
    read = sessionsA.getSync(session.sessionId);
  } catch (error) {
    read = error;
  }
  // Either the read fails (detached) or it sees the logout; an open session is the breach.
  expect(read).not.toMatchObject({ closedAtMs: null });
  sessionsA.dispose();
});
