/**
 * `passport login --save` naming a link through `/proc` (`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`
 * with standard output redirected to a file, or a link to one): `writePrivateFile` refuses to replace it
 * (a link through /proc names an open file, not a file of the user's), but `assertReplaceableJwtFile`,
 * which runs before the login, followed the link to the regular file and let it pass. So the run logged
 * in (a session opened and a challenge used), then failed `cannot write /dev/stdout (error); the new
 * session was closed` (a review), where login.command.ts says a refused --save file opens no session and
 * docs/cli.md gives `… is not a regular file; it was not overwritten` for such a path. The link here
 * names an open file of this process, as `/dev/stdout` does with standard output redirected to a file.
 */
import { mkdtemp, open, rm, symlink, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../apps/cli/src/cli.js';
import { runCliCaptured } from '../support/run-cli.js';

const JWT = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2ln';

describe('passport login --save naming a link through /proc', () => {
  let dir: string;
  let keyFile: string;
  let log: FileHandle;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cli-login-save-proc-'));
    keyFile = path.join(dir, 'owner.json');
    expect((await runCliCaptured(['keygen', '--out', keyFile])).code).toBe(0);
    log = await open(path.join(dir, 'stdout.log'), 'w');
  });
  afterAll(async () => {
    await log.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is refused before logging in, with the line docs/cli.md gives', async () => {
    const link = path.join(dir, 'stdout-like');
    await symlink(`/proc/self/fd/${log.fd}`, link);
    const calls: string[] = [];
    const json = (body: unknown) =>
      new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
    const fake = async (input: string | URL | Request) => {
      const url = new URL(input instanceof Request ? input.url : input);
      calls.push(url.pathname);
      if (url.pathname === '/api/login/timestamp')
        return json({ timestamp_iso: new Date(Math.floor(Date.now() / 1000) * 1000).toISOString() });
      if (url.pathname === '/api/login') return json({ jwt_token: JWT, passportid: 'bjbvcjzqbdsj' });
      return json({ message: 'closed', sessionClosed: true, sessionId: 's', requestId: 'r' });
    };
    let err = '';
    const code = await runCli(
      ['login', '--api', 'http://api.test', '--key', keyFile, '--passport', 'bjbvcjzqbdsj', '--save', link],
      { stdout: () => undefined, stderr: (text) => (err += text), env: {}, fetch: fake as typeof fetch },
    );
    expect([code, err]).toEqual([
      2,
      `passport login: ${link} is not a regular file; it was not overwritten\n`,
    ]);
    expect(calls).toEqual([]);
  });
});
