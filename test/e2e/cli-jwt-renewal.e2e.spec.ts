/**
 * The `passport` CLI keeps a saved JWT fresh: a bearer command run with `--jwt-file` when the token is
 * in its last 20 % receives `New-Token` and rewrites the file with it (mode 0600); a token given with
 * `--jwt` leaves no file behind. Real app, time driven by the core's FixedClock.
 */
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FixedClock } from '@passport/core/testing';
import { runCli } from '../../apps/cli/src/cli.js';
import { callApi } from '../../apps/cli/src/cli-context.js';
import { bearerIo } from '../../apps/cli/src/jwt-source.js';
import { mintAndLogin } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const claimsOf = (jwt: string): Record<string, any> =>
  JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));

describe('passport CLI: --jwt-file follows New-Token', () => {
  let app: TestApp;
  let clock: FixedClock;
  const cli = async (args: string[]) => {
    let out = '';
    let err = '';
    const code = await runCli(args, {
      stdout: (t) => (out += t),
      stderr: (t) => (err += t),
      env: {},
      fetch: globalThis.fetch,
    });
    return { code, out, err };
  };

  beforeAll(async () => {
    clock = new FixedClock(Math.floor(Date.now() / 1000) * 1000);
    app = await startTestApp({ STORE: 'memory' }, { clock });
  });
  afterAll(() => app.close());

  it('nonce and hola rewrite the saved JWT with the renewed one', async () => {
    const { jwt } = await mintAndLogin(app);
    const first = claimsOf(jwt);
    const file = join(app.dataDir, 'agent.jwt');
    await writeFile(file, `${jwt}\n`, { mode: 0o600 });

    clock.set((first.iat + 100) * 1000);
    expect((await cli(['nonce', '--api', app.baseUrl, '--jwt-file', file])).code).toBe(0);
    expect((await readFile(file, 'utf8')).trim()).toBe(jwt);

    clock.set((first.iat + 3000) * 1000);
    const run = await cli(['nonce', '--api', app.baseUrl, '--jwt-file', file]);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    const saved = (await readFile(file, 'utf8')).trim();
    expect(saved).not.toBe(jwt);
    expect(claimsOf(saved)).toMatchObject({
      session_id: first.session_id,
      iat: first.iat + 3000,
      exp: first.session_exp,
    });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // The saved token works on the next run.
    clock.set((first.iat + 4000) * 1000);
    expect((await cli(['nonce', '--api', app.baseUrl, '--jwt-file', file])).code).toBe(0);
  });
});

// Found by a probe: with a read-only --jwt-file, the failed write of the renewed token made the command
// print "cannot reach" the API, which had answered.
describe('passport CLI: a renewed token that cannot be saved', () => {
  it('is a warning on stderr; the command still succeeds', async () => {
    const clock = new FixedClock(Math.floor(Date.now() / 1000) * 1000);
    const app = await startTestApp({ STORE: 'memory' }, { clock });
    try {
      const { jwt } = await mintAndLogin(app);
      const dir = join(app.dataDir, 'jwt-dir');
      await mkdir(dir);
      const file = join(dir, 'agent.jwt');
      await writeFile(file, `${jwt}\n`, { mode: 0o600 });
      let err = '';
      const io = {
        stdout: () => undefined,
        stderr: (t: string) => (err += t),
        env: {},
        fetch: globalThis.fetch,
      };
      const bearer = await bearerIo(undefined, file, io, app.baseUrl);
      await rm(dir, { recursive: true }); // the renewal's write now fails (ENOENT), as on a read-only mount
      clock.set((claimsOf(jwt).iat + 3000) * 1000);
      const nonce = await callApi<{ noncetsHex: string }>(bearer.io, `${app.baseUrl}/api/holanonce16ts`, {
        headers: { authorization: `Bearer ${bearer.jwt}` },
      });
      expect(nonce.noncetsHex).toMatch(/^[0-9A-F]{32}$/);
      expect(err).toBe(
        `warning: the renewed token could not be saved to ${file} (ENOENT); the token in it stays valid until it expires\n`,
      );
    } finally {
      await app.close();
    }
  });
});

// Found by a probe: the renewal rewrote --jwt-file whatever it held by then (a key file, say).
describe('passport CLI: a --jwt-file that no longer holds a JWT', () => {
  it('is not replaced by the renewed token; a warning says so', async () => {
    const clock = new FixedClock(Math.floor(Date.now() / 1000) * 1000);
    const app = await startTestApp({ STORE: 'memory' }, { clock });
    try {
      const { jwt } = await mintAndLogin(app);
      const file = join(app.dataDir, 'agent.jwt');
      await writeFile(file, `${jwt}\n`, { mode: 0o600 });
      let err = '';
      const io = {
        stdout: () => undefined,
        stderr: (t: string) => (err += t),
        env: {},
        fetch: globalThis.fetch,
      };
      const bearer = await bearerIo(undefined, file, io, app.baseUrl);
      const credentials = '{"account_id":"a.near","public_key":"ed25519:x","private_key":"ed25519:y"}\n';
      await writeFile(file, credentials);
      clock.set((claimsOf(jwt).iat + 3000) * 1000);
      await callApi(bearer.io, `${app.baseUrl}/api/holanonce16ts`, {
        headers: { authorization: `Bearer ${bearer.jwt}` },
      });
      expect(await readFile(file, 'utf8')).toBe(credentials);
      expect(err).toBe(
        `warning: the renewed token was not saved: ${file} holds something other than a saved JWT; it was not overwritten\n`,
      );
    } finally {
      await app.close();
    }
  });
});
