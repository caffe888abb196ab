/**
 * A database this process may not write, left with its WAL by a crash: the start is refused with one line.
 * An operators' probe: with the WAL already set and no migration due, nothing written at open, so the
 * start went on, degraded; every login and verify answered 503 and a failed checkpoint was logged twice
 * a second. After a clean stop (no WAL) the same files were already refused at open.
 *
 * Root ignores file modes, so as root the opening process runs as `nobody` (setpriv); otherwise as this
 * user, whom the modes bind as well. The crash is a process killed with SIGKILL after a write.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
// The built package, as the server loads it (jest maps the package to its sources, which node cannot run).
const SQLITE = new URL('../../libs/passport-adapters/dist/sqlite/index.js', import.meta.url).href;

const CRASH = `
const { SqliteDatabase } = await import(process.argv[2]);
const db = SqliteDatabase.open(process.argv[3]);
db.immediate(() => db.statement("INSERT OR REPLACE INTO store_meta (name, value) VALUES ('probe', 'x')").run());
process.kill(process.pid, 'SIGKILL');
`;
const OPEN = `
const { SqliteDatabase } = await import(process.argv[2]);
try {
  SqliteDatabase.open(process.argv[3]).close();
  console.log('opened');
} catch (error) {
  console.log(error.message);
}
`;

/** Runs `script` with node as a user the file modes bind (nobody when this is root). */
async function runUnprivileged(script: string, ...args: string[]): Promise<string> {
  const node = [process.execPath, script, ...args];
  const [command, ...rest] =
    process.getuid?.() === 0
      ? ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', ...node]
      : node;
  return (await run(command!, rest)).stdout.trim();
}

describe('a SQLite database the server may not write, with a WAL left by a crash', () => {
  let dir: string;
  let data: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sqlite-read-only-'));
    await chmod(dir, 0o755);
    await writeFile(join(dir, 'crash.mjs'), CRASH);
    await writeFile(join(dir, 'open.mjs'), OPEN);
    data = join(dir, 'data');
  });
  afterEach(async () => {
    await chmod(data, 0o755).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });

  it('is refused at open with the reason, not started degraded', async () => {
    await run(process.execPath, [join(dir, 'crash.mjs'), SQLITE, join(data, 'passport.db')]).catch(
      (error: { signal?: string }) => expect(error.signal).toBe('SIGKILL'),
    );
    expect((await readdir(data)).sort()).toEqual(['passport.db', 'passport.db-shm', 'passport.db-wal']);
    for (const name of ['passport.db', 'passport.db-wal']) await chmod(join(data, name), 0o444);
    await chmod(join(data, 'passport.db-shm'), 0o666);
    await chmod(data, 0o555);
    expect(await runUnprivileged(join(dir, 'open.mjs'), SQLITE, join(data, 'passport.db'))).toBe(
      `cannot prepare the SQLite database ${join(data, 'passport.db')}: attempt to write a readonly database (are it and its directory writable?)`,
    );
  });
});
