/**
 * `passport login --save` that cannot write the token closes the new session, and says so only when the
 * server closed it. A full-disk probe: the login went through (SQLite reused room already in its log),
 * the file could not be written and the logout failed too (500), yet the CLI said "the new session was
 * closed", and that session counted against the passport's open sessions until it expired. The API is a
 * fetch of the test's own, so the logout's answer is the test's to choose.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../apps/cli/src/cli.js';
import { runCliCaptured } from '../support/run-cli.js';

const JWT = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2ln';

function fakeApi(logoutStatus: number): { fetch: typeof fetch; logouts: () => number } {
  let logouts = 0;
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  const fake = async (input: string | URL | Request) => {
    const url = new URL(input instanceof Request ? input.url : input);
    if (url.pathname === '/api/login/timestamp')
      return json(200, { timestamp_iso: new Date(Math.floor(Date.now() / 1000) * 1000).toISOString() });
    if (url.pathname === '/api/login') return json(200, { jwt_token: JWT });
    if (url.pathname === '/api/logout') {
      logouts += 1;
      return logoutStatus === 200
        ? json(200, { message: 'closed', sessionClosed: true, sessionId: 's', requestId: 'r' })
        : json(logoutStatus, {
            error: {
              code: 'SESSION_TERMINATION_FAILED',
              message: 'The session could not be terminated.',
              details: null,
            },
            requestId: 'r',
            timestamp: new Date().toISOString(),
          });
    }
    return json(404, {});
  };
  return { fetch: fake as typeof fetch, logouts: () => logouts };
}

describe('passport login --save that cannot write the token', () => {
  let dir: string;
  let keyFile: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cli-login-save-'));
    keyFile = path.join(dir, 'owner.json');
    expect((await runCliCaptured(['keygen', '--out', keyFile])).code).toBe(0);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.each([
    [200, 'the new session was closed'],
    [500, 'the new session could not be closed either: it stays open until it expires'],
  ])('logout answered %d: says "%s"', async (status, said) => {
    const api = fakeApi(status);
    let err = '';
    const code = await runCli(
      [
        'login',
        '--api',
        'http://api.test',
        '--key',
        keyFile,
        '--passport',
        'bjbvcjzqbdsj',
        '--save',
        '/proc/passport-nowhere/my.jwt',
      ],
      { stdout: () => undefined, stderr: (text) => (err += text), env: {}, fetch: api.fetch },
    );
    expect(code).toBe(2);
    expect(api.logouts()).toBe(1);
    expect(err).toContain('cannot write /proc/passport-nowhere/my.jwt (ENOENT); ');
    expect(err).toContain(said);
  });
});
