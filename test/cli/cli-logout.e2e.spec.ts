/**
 * `passport logout` ends the session of a token (`POST /api/logout`, docs/protocol.md §3): the README
 * quick start logged in and left no way to end the session from the tool (a new user's walkthrough).
 * Against the real app over HTTP: the refusals first (no token, a session closed already, a server
 * that is down), then a saved token logged out, after which its tokens are refused.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { formatNearCredentials, nearCredentialsFromSeed } from '@passport/core';
import { runCliCaptured } from '../support/run-cli.js';
import { mintPassport, newKey } from '../support/passports.js';
import { freePort, startTestApp, type TestApp } from '../support/test-app.js';

const cli = runCliCaptured;

describe('passport logout', () => {
  let app: TestApp;
  let dir: string;
  let keyFile: string;
  let tokenId: string;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
    dir = await mkdtemp(path.join(tmpdir(), 'passport-cli-logout-'));
    const key = newKey();
    tokenId = (await mintPassport(app, { owner: key })).tokenId;
    keyFile = path.join(dir, 'key.json');
    await writeFile(keyFile, JSON.stringify(formatNearCredentials(nearCredentialsFromSeed(key.seed))), {
      mode: 0o600,
    });
  });
  afterAll(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function loginSaved(name: string): Promise<string> {
    const file = path.join(dir, name);
    const login = await cli([
      'login',
      '--api',
      app.baseUrl,
      '--key',
      keyFile,
      '--passport',
      tokenId,
      '--save',
      file,
    ]);
    expect(login.code).toBe(0);
    return file;
  }

  it('without a token: exit 2, one line, no request', async () => {
    const run = await cli(['logout', '--api', app.baseUrl]);
    expect([run.code, run.out, run.err]).toEqual([
      2,
      '',
      'passport logout: --jwt <token> or --jwt-file <file> is required (or set PASSPORT_JWT)\n',
    ]);
    const empty = await cli(['logout', '--api', app.baseUrl, '--jwt-file', '']);
    expect([empty.code, empty.err]).toEqual([
      2,
      'passport logout: --jwt-file is empty (an unset variable?)\n',
    ]);
    const missing = await cli(['logout', '--api', app.baseUrl, '--jwt-file', path.join(dir, 'none.jwt')]);
    expect([missing.code, missing.err]).toEqual([
      2,
      `passport logout: cannot read ${path.join(dir, 'none.jwt')} (ENOENT)\n`,
    ]);
  });

  it('a token whose session is closed already: exit 2, the API code and what it means', async () => {
    const file = await loginSaved('twice.jwt');
    expect((await cli(['logout', '--api', app.baseUrl, '--jwt-file', file])).code).toBe(0);
    const again = await cli(['logout', '--api', app.baseUrl, '--jwt-file', file]);
    expect(again.code).toBe(2);
    expect(again.out).toBe('');
    expect(again.err).toMatch(
      /^passport logout: \/api\/logout answered 401 INVALIDATED_TOKEN: .*; its session is closed already \(an earlier logout or a revocation\): nothing to log out\n$/,
    );
  });

  it('a server that is down: exit 2, cannot reach', async () => {
    const file = await loginSaved('down.jwt');
    const down = `http://127.0.0.1:${await freePort()}`;
    const run = await cli(['logout', '--api', down, '--jwt-file', file]);
    expect([run.code, run.out, run.err]).toEqual([
      2,
      '',
      `passport logout: cannot reach ${down} (ECONNREFUSED)\n`,
    ]);
  });

  it('a --reason the server would not keep is refused before any request', async () => {
    const file = await loginSaved('reason.jwt');
    const run = await cli(['logout', '--api', app.baseUrl, '--jwt-file', file, '--reason', 'é'.repeat(3)]);
    expect([run.code, run.err]).toEqual([
      2,
      'passport logout: --reason must be 1-100 printable ASCII characters\n',
    ]);
    // The session is still open: the run sent nothing.
    expect((await cli(['nonce', '--api', app.baseUrl, '--jwt-file', file])).code).toBe(0);
  });

  it("closes a saved token's session: exit 0, the session named, the file left, its tokens refused", async () => {
    const file = await loginSaved('my.jwt');
    const saved = await readFile(file, 'utf8');
    const run = await cli(['logout', '--api', app.baseUrl, '--jwt-file', file, '--reason', 'done for today']);
    expect(run.code).toBe(0);
    expect(run.err).toBe('');
    expect(run.out).toMatch(/^logged out: session sess_[a-z]{12}_[0-9A-Z]{26} closed\n$/);
    expect(await readFile(file, 'utf8')).toBe(saved);
    const nonce = await cli(['nonce', '--api', app.baseUrl, '--jwt-file', file]);
    expect(nonce.code).toBe(2);
    expect(nonce.err).toContain('401 INVALIDATED_TOKEN');
  });

  it('--json prints the API answer; --jwt and PASSPORT_JWT work as in nonce', async () => {
    const file = await loginSaved('json.jwt');
    const jwt = (await readFile(file, 'utf8')).trim();
    const run = await cli(['logout', '--api', app.baseUrl, '--jwt', jwt, '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out)).toMatchObject({ message: 'Session closed.', sessionClosed: true });
    const env = await cli(['logout', '--api', app.baseUrl], {
      PASSPORT_JWT: (await readFile(await loginSaved('env.jwt'), 'utf8')).trim(),
    });
    expect(env.code).toBe(0);
  });
});
