/**
 * The `passport` tool in a hostile environment (review 24's CLI probe): what it writes over with
 * `keygen --force`, what it says when an API stalls in the middle of its answer, and what it says when
 * the API names a reason in `details`.
 */
import { execFileSync } from 'node:child_process';
import { lstat, mkdtemp, readlink, rm, symlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readLedgerFile, ensureDevFamily } from '@passport/adapters/ledger';
import { loadConfig } from '../../apps/api/src/platform/config/app-config.js';
import { runCli } from '../../apps/cli/src/cli.js';
import { runCliCaptured } from '../support/run-cli.js';

describe('passport in a hostile environment', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cli-hostile-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  // Found by a probe: as root, `keygen --out /dev/stdout` said "exists; use --force", and `--force` then
  // renamed the key over the /dev/stdout link itself: every later `> /dev/stdout` (a container's logs)
  // went into that file. A link whose target is a device, a FIFO or a socket is no key file to replace.
  it('keygen --force refuses a symbolic link to a device or a FIFO, and keeps the link', async () => {
    const toDevice = path.join(dir, 'stdout-like');
    await symlink('/dev/null', toDevice);
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const toFifo = path.join(dir, 'to-fifo');
    await symlink(fifo, toFifo);
    for (const link of [toDevice, toFifo]) {
      const run = await runCliCaptured(['keygen', '--out', link, '--force']);
      expect([run.code, run.out]).toEqual([2, '']);
      expect(run.err).toContain('is not a regular file');
      expect((await lstat(link)).isSymbolicLink()).toBe(true);
    }
    expect(await readlink(toDevice)).toBe('/dev/null');
  });

  // A mutation probe: refusing a link to nothing (as one to a device) passed; such a link is replaced
  // itself, as any link to a file is, and nothing is created where it pointed.
  it('keygen --force replaces a symbolic link to nothing with the key file', async () => {
    const dangling = path.join(dir, 'to-nothing');
    await symlink(path.join(dir, 'nothing-here'), dangling);
    const run = await runCliCaptured(['keygen', '--out', dangling, '--force']);
    expect(run.code).toBe(0);
    expect((await lstat(dangling)).isFile()).toBe(true);
    await expect(lstat(path.join(dir, 'nothing-here'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('keygen without --force does not invite --force for a FIFO or a link to a device', async () => {
    const fifo = path.join(dir, 'fifo2');
    execFileSync('mkfifo', [fifo]);
    const toDevice = path.join(dir, 'stdout-like2');
    await symlink('/dev/null', toDevice);
    for (const target of [fifo, toDevice]) {
      const run = await runCliCaptured(['keygen', '--out', target]);
      expect(run.code).toBe(2);
      expect(run.err).not.toContain('use --force');
    }
  });

  describe('against an API that stalls or explains', () => {
    let server: Server;
    let api: string;
    beforeAll(async () => {
      server = createServer((req, res) => {
        if (req.url === '/api/login/timestamp') {
          // Headers at once, then the body never ends: the request was served.
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"timestamp_iso":');
          return;
        }
        res.writeHead(404).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      api = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    // docs/cli.md: "A call that gets no answer within PASSPORT_API_TIMEOUT_MS stops the run with `no
    // answer within …`; the request may have been served all the same". A body that stalls said only
    // "the answer could not be read (TimeoutError)", without the variable or the warning, though its
    // headers prove the request was served.
    it('a body that stalls past PASSPORT_API_TIMEOUT_MS is "no answer within", as a silent server is', async () => {
      const key = path.join(dir, 'owner.json');
      expect((await runCliCaptured(['keygen', '--out', key])).code).toBe(0);
      const run = await runCliCaptured(['login', '--api', api, '--key', key, '--passport', 'abcdefghijkl'], {
        PASSPORT_API_TIMEOUT_MS: '300',
      });
      expect(run.code).toBe(2);
      expect(run.err).toContain('no answer within 0.3 s');
      expect(run.err).toContain('PASSPORT_API_TIMEOUT_MS');
    }, 20_000);
  });

  // The server's message for LOGIN_CHALLENGE_TIMESTAMP_INVALID says "(details.reason says which)", and the
  // CLI printed that sentence without details.reason: a user could not tell a used challenge (eight
  // logins of one passport at once, a probe) from an expired one or a skewed clock.
  it('an API refusal names details.reason when the message points to it', async () => {
    const key = path.join(dir, 'owner2.json');
    expect((await runCliCaptured(['keygen', '--out', key])).code).toBe(0);
    const json = (status: number, body: unknown) =>
      new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    const fake = (async (input: string | URL | Request) => {
      const url = new URL(input instanceof Request ? input.url : input);
      if (url.pathname === '/api/login/timestamp')
        return json(200, { timestamp_iso: new Date(Math.floor(Date.now() / 1000) * 1000).toISOString() });
      return json(401, {
        error: {
          code: 'LOGIN_CHALLENGE_TIMESTAMP_INVALID',
          message:
            'The login challenge timestamp was rejected: too old, too far ahead or already used (details.reason says which).',
          details: { reason: 'challenge_expired' },
        },
      });
    }) as typeof fetch;
    let err = '';
    const code = await runCli(
      ['login', '--api', 'http://api.test', '--key', key, '--passport', 'abcdefghijkl'],
      { stdout: () => undefined, stderr: (t) => (err += t), env: {}, fetch: fake },
    );
    expect(code).toBe(2);
    expect(err).toContain('challenge_expired');
  });

  // `login --save "$JWT_FILE"` with the variable unset: the token went to standard output (exit 0; with
  // --json, jwt_token and "saved": ""), where scripts and CI logs keep it, the very thing --save is for.
  // An empty --save is refused before the login, as keygen refuses an empty --out.
  it('login --save "" is refused before logging in, and prints no token', async () => {
    const key = path.join(dir, 'owner3.json');
    expect((await runCliCaptured(['keygen', '--out', key])).code).toBe(0);
    let calls = 0;
    const json = (body: unknown) =>
      new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
    const fake = (async (input: string | URL | Request) => {
      calls += 1;
      const url = new URL(input instanceof Request ? input.url : input);
      if (url.pathname === '/api/login/timestamp')
        return json({ timestamp_iso: new Date(Math.floor(Date.now() / 1000) * 1000).toISOString() });
      return json({ jwt_token: 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2ln', passportid: 'abcdefghijkl' });
    }) as typeof fetch;
    for (const extra of [[], ['--json']]) {
      let out = '';
      const code = await runCli(
        [
          'login',
          '--api',
          'http://api.test',
          '--key',
          key,
          '--passport',
          'abcdefghijkl',
          '--save',
          '',
          ...extra,
        ],
        { stdout: (t) => (out += t), stderr: () => undefined, env: {}, fetch: fake },
      );
      expect([code, out]).toEqual([2, '']);
    }
    expect(calls).toBe(0);
  });

  // A server's answer nested a million arrays deep (2 MB, under the 4 MiB the tool reads) made `did`,
  // `nonce --json` and `verify --json` end with "unexpected error: Maximum call stack size exceeded",
  // exit 1: "a bug" by the exit-code table, and for verify "not verified". An API that answers so is an
  // API that failed: one line naming it, exit 2.
  it('an answer nested too deeply to print is the API failing (exit 2), not an unexpected error', async () => {
    const depth = 1_000_000;
    const nested = '['.repeat(depth) + ']'.repeat(depth);
    const fake = (async () =>
      new Response(`{"id":"did:passport:abcdefghijkl","deep":${nested}}`, {
        status: 200,
        headers: { 'content-type': 'application/json' },
      })) as typeof fetch;
    let err = '';
    let out = '';
    const code = await runCli(['did', '--api', 'http://api.test', '--', 'did:passport:abcdefghijkl'], {
      stdout: (t) => (out += t),
      stderr: (t) => (err += t),
      env: {},
      fetch: fake,
    });
    expect([code, out]).toEqual([2, '']);
    expect(err).not.toContain('unexpected error');
  });

  // A probe: the server reads its configuration trimmed, an empty variable as unset (an .env line
  // `LEDGER_FILE=`); mint, which names the same variables, read them as given: "cannot read  (ENOENT)",
  // "--family-key is empty" of a flag not given, and DATA_DIR="" read /ledger.json and /keys/.
  it('mint reads DATA_DIR, LEDGER_FILE and the credentials files as the server does (empty: unset)', async () => {
    const data = path.join(dir, 'data-env');
    await ensureDevFamily(loadConfig({ DATA_DIR: data }));
    const key = path.join(dir, 'env-owner.json');
    expect((await runCliCaptured(['keygen', '--out', key])).code).toBe(0);
    const run = await runCliCaptured(['mint', '--key', key], {
      DATA_DIR: ` ${data} `,
      LEDGER_FILE: '',
      FAMILY_CREDENTIALS_FILE: ' ',
      SERVER_CREDENTIALS_FILE: '',
    });
    expect(run).toEqual({ code: 0, out: expect.stringMatching(/^[a-z]{12}\n$/), err: '' });
    const ledger = await readLedgerFile(path.join(data, 'ledger.json'));
    expect(ledger.passports.map((p) => p.token_id)).toContain(run.out.trim());
  });
});
