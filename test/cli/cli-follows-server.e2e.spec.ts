/**
 * The CLI follows the server, not the URL: a server whose host marker (SERVICE_HOST) differs from the
 * host of the URL it is reached by announces the marker in GET / and /.well-known/mcp, and
 * `passport hola --api URL` builds a line with it, which the server then verifies. The passport is
 * minted the issuer's way (no token_id in its metadata).
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildLoginRequest, formatNearCredentials, nearCredentialsFromSeed } from '@passport/core';
import { runCliCaptured } from '../support/run-cli.js';
import { SESSION_STORE } from '../../apps/api/src/platform/infrastructure/di-tokens.js';
import { type SessionStore } from '@passport/core/ports';
import { bearer, mintAndLogin, mintPassport, newKey } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const cli = runCliCaptured;

/** `passport login` against `app` with a key file and a passport, plus `extra` flags. */
const logIn = (app: TestApp, keyFile: string, tokenId: string, ...extra: string[]) =>
  cli(['login', '--api', app.baseUrl, '--key', keyFile, '--passport', tokenId, ...extra]);

/** A passport minted for a new key (no login of its own), and that key written as a 0600 key file. */
async function mintedWithKeyFile(
  app: TestApp,
  dir: string,
  name: string,
  metadata: Record<string, string> = {},
) {
  const key = newKey();
  const minted = await mintPassport(app, { owner: key, metadata });
  const keyFile = path.join(dir, `${name}.json`);
  await writeFile(keyFile, JSON.stringify(formatNearCredentials(nearCredentialsFromSeed(key.seed))), {
    mode: 0o600,
  });
  return { tokenId: minted.tokenId, key, keyFile };
}

describe('passport hola --api follows the host marker the server announces', () => {
  let app: TestApp;
  let dir: string;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory', SERVICE_HOST: 'id.example.org' });
    dir = await mkdtemp(path.join(tmpdir(), 'passport-cli-wire-'));
  });
  afterAll(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('GET / and /.well-known/mcp publish hola.serviceHost', async () => {
    for (const route of ['/', '/.well-known/mcp']) {
      const body = (await (await fetch(`${app.baseUrl}${route}`)).json()) as {
        hola?: { serviceHost?: string };
      };
      expect([route, body.hola?.serviceHost]).toEqual([route, 'id.example.org']);
    }
  });

  it('a line built with --api verifies although the URL host is 127.0.0.1:<port>', async () => {
    const user = await mintAndLogin(app);
    const keyFile = path.join(dir, 'me.json');
    await writeFile(keyFile, JSON.stringify(formatNearCredentials(nearCredentialsFromSeed(user.key.seed))), {
      mode: 0o600,
    });
    const built = await cli([
      'hola',
      '--key',
      keyFile,
      '--passport',
      user.tokenId,
      '--api',
      app.baseUrl,
      '--jwt',
      user.jwt,
      '--json',
    ]);
    // It says so: the marker is the server's word, not the URL's.
    expect([built.code, built.err]).toEqual([
      0,
      `warning: ${new URL(app.baseUrl).host} announces the host marker id.example.org: the line is signed for id.example.org (give --host to choose it)\n`,
    ]);
    const { hola, serviceHost } = JSON.parse(built.out) as { hola: string; serviceHost: string };
    expect(serviceHost).toBe('id.example.org');
    const res = await fetch(`${app.baseUrl}/api/identity/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(user.jwt) },
      body: JSON.stringify({ hola }),
    });
    const body = (await res.json()) as { verified: boolean; failureReasons?: string[] };
    expect([res.status, body.verified, body.failureReasons ?? []]).toEqual([200, true, []]);
  });

  // Found by a review: one login per passport and challenge second, and replicas sharing a passport
  // that start together failed with 401 challenge_already_used. The tool takes the next second's.
  it("passport login succeeds when another process took this second's challenge for the same passport", async () => {
    // Minted without a login of its own, so that the first login below is this second's first.
    const user = await mintedWithKeyFile(app, dir, 'replica');
    const { keyFile } = user;
    // Early in a second, so that the other login and the tool's first attempt share it.
    while (Date.now() % 1000 > 300) await new Promise((resolve) => setTimeout(resolve, 10));
    const challenge = (await (await fetch(`${app.baseUrl}/api/login/timestamp`)).json()) as {
      timestamp_iso: string;
    };
    const other = await fetch(`${app.baseUrl}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(
        buildLoginRequest({
          identity: { passportId: user.tokenId },
          timestampIso: challenge.timestamp_iso,
          signer: user.key.signer,
        }),
      ),
    });
    expect(other.status).toBe(200);
    const started = Date.now();
    const replica = await logIn(app, keyFile, user.tokenId, '--json');
    expect([replica.code, replica.err]).toEqual([0, '']);
    expect(JSON.parse(replica.out)).toMatchObject({
      jwt_token: expect.any(String),
      passportid: user.tokenId,
    });
    // It waited for the next second rather than failing (or retrying at once into the same refusal).
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
  });

  // Found by a README walkthrough: a passport minted for the URL of an earlier start was refused with
  // only "The login mode of this server rejects this passport"; the fix was in the server's log alone.
  it('passport login of a passport minted for another API says so and what to do', async () => {
    const { tokenId, keyFile } = await mintedWithKeyFile(app, dir, 'foreign', {
      subjectuniqueidentifier_url: 'https://other.example.test',
    });
    const refused = await logIn(app, keyFile, tokenId);
    expect(refused.code).not.toBe(0);
    expect(refused.err).toBe(
      `passport login: /api/login answered 401 LOGIN_MODE_POLICY_REJECTED_FOREIGN_BY_PARTNER: The login mode of this server rejects this passport. (issued_for_another_api) (the passport names another API (https://other.example.test) than this one, ${app.baseUrl}, as its server: mint one for this API with passport mint --api ${app.baseUrl})\n`,
    );
  });

  // Found by a probe: --save onto an existing 0644 file left the JWT readable by everyone.
  it('passport login --save replaces an existing readable file with a new 0600 one', async () => {
    const { tokenId, keyFile } = await mintedWithKeyFile(app, dir, 'saver');
    const minted = { tokenId };
    const jwtFile = path.join(dir, 'saver.jwt');
    // An earlier saved token (a file that is no JWT is refused: cli.e2e.spec.ts).
    await writeFile(jwtFile, 'eyJhbGciOiJFZERTQSJ9.eyJvbGQiOnRydWV9.b2xkLXNpZ25hdHVyZQ\n', { mode: 0o644 });
    const saved = await logIn(app, keyFile, minted.tokenId, '--save', jwtFile);
    expect([saved.code, saved.err]).toEqual([0, '']);
    expect((await stat(jwtFile)).mode & 0o777).toBe(0o600);
    expect((await readFile(jwtFile, 'utf8')).split('.')).toHaveLength(3);
  });

  // Found by a README walkthrough: login --json --save printed the token it had just saved, to
  // standard output, where scripts and CI logs keep it.
  it('passport login --save --json prints no token: jwt_token is null and saved names the file', async () => {
    const { tokenId, keyFile } = await mintedWithKeyFile(app, dir, 'quiet');
    const jwtFile = path.join(dir, 'quiet.jwt');
    const saved = await logIn(app, keyFile, tokenId, '--save', jwtFile, '--json');
    expect([saved.code, saved.err]).toEqual([0, '']);
    const token = (await readFile(jwtFile, 'utf8')).trim();
    expect(token.split('.')).toHaveLength(3);
    expect(JSON.parse(saved.out)).toEqual({ jwt_token: null, passportid: tokenId, saved: jwtFile });
    expect(saved.out).not.toContain(token.split('.')[2]);
    // Without --save, --json carries the token.
    const printed = await logIn(app, keyFile, tokenId, '--json');
    expect((JSON.parse(printed.out) as { jwt_token: string }).jwt_token.split('.')).toHaveLength(3);
  });

  // Found by a review: a --save that failed lost the token and left its session open.
  it('passport login --save that cannot write closes the new session and says so', async () => {
    const { tokenId, keyFile } = await mintedWithKeyFile(app, dir, 'unsaved');
    const minted = { tokenId };
    const failed = await logIn(app, keyFile, minted.tokenId, '--save', '/proc/passport-nowhere/my.jwt');
    expect(failed.code).toBe(2);
    expect(failed.err).toMatch(
      /^passport login: cannot write \/proc\/passport-nowhere\/my\.jwt \(ENOENT\); the new session was closed\n$/,
    );
    const sessions = app.app.get<SessionStore>(SESSION_STORE);
    const mine = (await sessions.list({ offset: 0, limit: 100 })).items.filter(
      (s) => s.tokenId === minted.tokenId,
    );
    expect(mine.length).toBe(1);
    expect(mine[0].closedAtMs).not.toBeNull();
  });

  it('passport keygen onto a directory says so, with or without --force', async () => {
    for (const args of [[], ['--force']]) {
      const result = await cli(['keygen', '--out', dir, ...args]);
      expect([result.code, result.err.trim()]).toEqual([2, `passport keygen: ${dir} is a directory`]);
    }
  });
});
