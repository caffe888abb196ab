/**
 * kill -9 during the login recorder's group commits (batches without a savepoint per login, as far
 * from the session cap): every login answered before the kill has its session and its used challenge
 * in the file, and the file is intact. A process crash, not a power loss: the kernel keeps what was
 * written (what synchronous=NORMAL promises).
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SqliteDatabase } from '@passport/adapters/sqlite';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'passport-login-kill9-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('kill -9 while logins are written: every answered login has its session and its used challenge', async () => {
  const child = fork(
    join(dirname(fileURLToPath(import.meta.url)), 'support/login-writer.ts'),
    [dir, '0', '500'],
    {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const answered: Array<[string, string]> = [];
  child.on('message', (message: { answered: Array<[string, string]> }) => answered.push(...message.answered));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const deadline = Date.now() + 60_000;
    while (answered.length < 5000) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error('the writer stopped early');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
  const db = SqliteDatabase.openInDataDir(dir);
  try {
    expect(db.statement('PRAGMA integrity_check').pluck().get()).toBe('ok');
    const sessions = new Set(db.statement('SELECT session_id FROM sessions').pluck().all() as string[]);
    const challenges = new Set(db.statement('SELECT key FROM replay_records').pluck().all() as string[]);
    expect(answered.filter(([, sessionId]) => !sessions.has(sessionId))).toEqual([]);
    expect(answered.filter(([key]) => !challenges.has(key))).toEqual([]);
    // Both or neither: no session without its challenge, none of a batch cut in two.
    expect(sessions.size).toBe(challenges.size);
  } finally {
    db.close();
  }
}, 90_000);
