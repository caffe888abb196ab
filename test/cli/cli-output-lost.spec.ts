/**
 * A command whose result cannot be written to stdout (a full disk: `> /dev/full`) after it has done
 * something that stays done says so on stderr: what was done and that stdout failed, exit 2. A probe:
 * `passport mint … > /dev/full` minted the passport, then exited 2 with nothing on stderr, so the user
 * did not know that it was minted nor its token id (and keygen, login --save, login and verify --api
 * alike). A login whose printed token did not arrive logs that session out, as login --save does when
 * it cannot write its file. The CLI runs from source in a child process whose stdout is /dev/full; the API is a small
 * HTTP server of the test's own on a loopback port.
 */
import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureDevFamily, LedgerChainReader } from '@passport/adapters/ledger';
import { loadConfig } from '../../apps/api/src/platform/config/app-config.js';
import { runCliCaptured } from '../support/run-cli.js';

const ROOT = path.resolve(new URL('../..', import.meta.url).pathname);
const JWT = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2ln';

/**
 * Runs the CLI with stdout on /dev/full (or, `closed`, on a pipe closed before it writes: a reader that
 * went away); resolves with its exit code and stderr.
 */
function runToFullDevice(
  args: string[],
  env: Record<string, string> = {},
  stdout: 'full' | 'closed' = 'full',
): Promise<{ code: number | null; stderr: string }> {
  const full = stdout === 'full' ? openSync('/dev/full', 'w') : 'pipe';
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'apps/cli/src/main.ts', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', full, 'pipe'],
    });
    if (typeof full === 'number') closeSync(full);
    else child.stdout?.destroy();
    let stderr = '';
    child.stderr?.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

/**
 * An API that logs anyone in, answers every verify "not verified" for the line's sender, and records the
 * bearer of each logout (answered 503 while `logout.fail` is set).
 */
const logout = { bearers: [] as string[], fail: false };

function fakeApi(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/api/login/timestamp')
        return json(200, { timestamp_iso: new Date(Math.floor(Date.now() / 1000) * 1000).toISOString() });
      if (url.pathname === '/api/login') return json(200, { jwt_token: JWT, passportid: 'bhahbkbramax' });
      if (url.pathname === '/api/logout' && req.method === 'POST') {
        logout.bearers.push(req.headers.authorization ?? '');
        if (logout.fail) return json(503, { error: { code: 'SERVICE_UNAVAILABLE', message: 'down' } });
        return json(200, { loggedOut: true });
      }
      if (url.pathname === '/api/identity/verify') {
        const sender = (JSON.parse(body) as { hola: string }).hola.split('/')[1].toLowerCase();
        return json(200, { verified: false, failureReasons: ['nonce_replay'], peerTokenId: sender });
      }
      json(404, {});
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

describe('a result that cannot be written to stdout after the run did something', () => {
  let dir: string;
  let keyFile: string;
  let api: { server: Server; url: string };
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cli-output-lost-'));
    await ensureDevFamily(loadConfig({ DATA_DIR: dir }));
    keyFile = path.join(dir, 'owner.json');
    expect((await runCliCaptured(['keygen', '--out', keyFile])).code).toBe(0);
    api = await fakeApi();
  });
  afterAll(async () => {
    await new Promise((resolve) => api.server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it('mint says on stderr that the passport was minted, with its token id and ledger', async () => {
    const ledger = path.join(dir, 'ledger.json');
    const { code, stderr } = await runToFullDevice(['mint', '--key', keyFile], { DATA_DIR: dir });
    expect(code).toBe(2);
    const said =
      /^passport mint: standard output could not be written \(ENOSPC\); what was done: minted passport ([a-z]{12}) into (.+)\n$/.exec(
        stderr,
      );
    expect(said).not.toBeNull();
    expect(said![2]).toBe(ledger);
    const reader = await LedgerChainReader.open(ledger, { watch: false });
    try {
      expect(await reader.getPassport(said![1])).not.toBeNull();
    } finally {
      reader.close();
    }
  }, 60_000);

  it('keygen says which key it wrote, and where', async () => {
    const out = path.join(dir, 'new-key.json');
    const { code, stderr } = await runToFullDevice(['keygen', '--out', out]);
    expect(code).toBe(2);
    expect((await stat(out)).isFile()).toBe(true);
    const key = JSON.parse(await readFile(out, 'utf8')) as { account_id: string; public_key: string };
    expect(stderr).toBe(
      `passport keygen: standard output could not be written (ENOSPC); what was done: wrote the key of ${key.account_id} (${key.public_key}) to ${out}\n`,
    );
  }, 60_000);

  // What was done names the user's own paths: said as every error is (no escape sequence, one line).
  it("keygen's line shows a path with control characters escaped, on one line", async () => {
    const out = path.join(dir, 'k\u001b[31m\nred.json');
    const { code, stderr } = await runToFullDevice(['keygen', '--out', out]);
    expect(code).toBe(2);
    expect((await stat(out)).isFile()).toBe(true);
    expect(stderr).toMatch(
      /^passport keygen: standard output could not be written \(ENOSPC\); what was done: [^\n]*\n$/,
    );
    expect(stderr).not.toContain('\u001b');
  }, 60_000);

  it('login --save says the JWT was saved; login without --save says a session is open, never the token', async () => {
    const saved = path.join(dir, 'my.jwt');
    const args = ['login', '--api', api.url, '--key', keyFile, '--passport', 'bhahbkbramax'];
    logout.bearers = [];
    const withSave = await runToFullDevice([...args, '--save', saved]);
    expect(withSave.code).toBe(2);
    expect((await readFile(saved, 'utf8')).trim()).toBe(JWT);
    expect(withSave.stderr).toBe(
      `passport login: standard output could not be written (ENOSPC); what was done: logged in, and the JWT was saved to ${saved}\n`,
    );
    const printed = await runToFullDevice(args);
    expect(printed.code).toBe(2);
    expect(printed.stderr).toMatch(
      /^passport login: standard output could not be written \(ENOSPC\); what was done: logged in[^\n]*session[^\n]*\n$/,
    );
    expect(printed.stderr).not.toContain(JWT);
    expect(printed.stderr).not.toContain(JWT.split('.')[2]);
    // The saved token's session is kept; the one whose token went nowhere is closed.
    expect(logout.bearers).toEqual([`Bearer ${JWT}`]);
  }, 60_000);

  // A probe: login without --save into a full stdout said "its session stays open" and left it open,
  // where login --save that cannot write its file logs the session out: a token nobody received is a
  // session nobody can close, counting against the passport's open sessions until it expires.
  it('login whose token cannot be printed closes its session, and says so; honestly when it cannot', async () => {
    const args = ['login', '--api', api.url, '--key', keyFile, '--passport', 'bhahbkbramax'];
    for (const json of [[], ['--json']]) {
      logout.bearers = [];
      const printed = await runToFullDevice([...args, ...json]);
      expect(printed).toEqual({
        code: 2,
        stderr:
          'passport login: standard output could not be written (ENOSPC); what was done: logged in, but the JWT could not be printed, so its session was closed\n',
      });
      expect(logout.bearers).toEqual([`Bearer ${JWT}`]);
    }
    logout.bearers = [];
    logout.fail = true;
    try {
      const unclosed = await runToFullDevice(args);
      expect(unclosed.code).toBe(2);
      expect(unclosed.stderr).toBe(
        "passport login: standard output could not be written (ENOSPC); what was done: logged in, but the JWT could not be printed, and its session could not be closed either: it stays open until it expires (counting against the passport's open sessions)\n",
      );
      expect(unclosed.stderr).not.toContain(JWT.split('.')[2]);
      expect(logout.bearers).toEqual([`Bearer ${JWT}`]);
    } finally {
      logout.fail = false;
    }
  }, 90_000);

  it('login whose reader went away before the token closes its session too (exit 2: no token was received)', async () => {
    logout.bearers = [];
    const args = ['login', '--api', api.url, '--key', keyFile, '--passport', 'bhahbkbramax'];
    const gone = await runToFullDevice(args, {}, 'closed');
    expect(gone).toEqual({
      code: 2,
      stderr:
        'passport login: the reader of standard output went away before the result; what was done: logged in, but the JWT could not be printed, so its session was closed\n',
    });
    expect(logout.bearers).toEqual([`Bearer ${JWT}`]);
  }, 60_000);

  /** A line signed offline by the test's passport (the tool's own nonce). */
  const offlineLine = () =>
    runCliCaptured(['hola', '--host', 'localhost:3000', '--key', keyFile, '--passport', 'bhahbkbramax']);

  it('verify --api says the lines were checked at the API (a verified line there has its nonce used)', async () => {
    const line = await offlineLine();
    expect(line.code).toBe(0);
    const { code, stderr } = await runToFullDevice(['verify', '--api', api.url, '--', line.out.trim()]);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /^passport verify: standard output could not be written \(ENOSPC\); what was done: checked 1 line at http:\/\/127\.0\.0\.1:\d+[^\n]*nonce[^\n]*\n$/,
    );
  }, 60_000);

  // The verdicts before a line that failed are printed, and their nonces are used at the API all the same.
  it('verify --api whose second line fails says the first was checked at the API', async () => {
    let calls = 0;
    const failing = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        calls++;
        res.writeHead(calls === 1 ? 200 : 500, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify(
            calls === 1
              ? { verified: false, failureReasons: ['nonce_replay'], peerTokenId: 'bhahbkbramax' }
              : { error: { code: 'INTERNAL', message: 'boom' } },
          ),
        );
      });
    });
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;
      const lines: string[] = [];
      for (let i = 0; i < 2; i++) {
        const line = await offlineLine();
        expect(line.code).toBe(0);
        lines.push(line.out.trim());
      }
      const { code, stderr } = await runToFullDevice(['verify', '--api', url, '--', ...lines]);
      expect(code).toBe(2);
      expect(calls).toBe(2);
      expect(stderr).toMatch(/\(line 2 of 2; [^\n]*\n/);
      expect(stderr).toMatch(
        /\npassport verify: standard output could not be written \(ENOSPC\); what was done: checked 1 line at http:\/\/127\.0\.0\.1:\d+[^\n]*\n$/,
      );
    } finally {
      await new Promise((resolve) => failing.close(resolve));
    }
  }, 60_000);

  // Only stdout carries the result: a warning that cannot be written to stderr (a full device) leaves
  // the run's own exit code.
  it('a stderr that cannot be written leaves a successful run at exit 0 (mint with a warning)', async () => {
    const full = openSync('/dev/full', 'w');
    const result = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'apps/cli/src/main.ts', 'mint', '--key', keyFile, '--dn', 'not a dn'],
        {
          cwd: ROOT,
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dir },
          stdio: ['ignore', 'pipe', full],
        },
      );
      closeSync(full);
      let stdout = '';
      child.stdout?.on('data', (d) => (stdout += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout }));
    });
    expect(result).toEqual({ code: 0, stdout: expect.stringMatching(/^[a-z]{12}\n$/) });
  }, 60_000);
});
