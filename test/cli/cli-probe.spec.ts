/**
 * Findings of a hostile probe of the `passport` tool (2026-11-28), each as a test that fails on the
 * code it was found on. The real commands run in-process against small local servers that answer what
 * a hostile or misconfigured API could.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDevFamily, type LedgerDocument } from '@passport/adapters/ledger';
import { runCliCaptured } from '../support/run-cli.js';
import { loadConfig } from '../../apps/api/src/platform/config/app-config.js';

const cli = runCliCaptured;

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

/** A local HTTP server answering with `handler`; its base URL and the requests it saw. */
async function fakeApi(handler: Handler): Promise<{ url: string; seen: string[]; server: Server }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url}`);
      handler(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

describe('passport CLI: probe findings', () => {
  let dir: string;
  let keyFile: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'passport-cli-probe-'));
    keyFile = join(dir, 'me.json');
    expect((await cli(['keygen', '--out', keyFile])).code).toBe(0);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  // docs/protocol.md: "a login body given to one server is a login at every server that accepts the
  // passport, for the 300 s of its challenge". A challenge time a day ahead makes it a login for a window
  // of the hostile server's choosing (the real API takes it once that second comes: reproduced).
  it('login refuses to sign a challenge time far ahead of the local clock', async () => {
    const ahead = new Date((Math.floor(Date.now() / 1000) + 86_400) * 1000).toISOString();
    const api = await fakeApi((req, _body, res) =>
      req.url === '/api/login/timestamp'
        ? json(res, 200, { timestamp: 0, timestamp_iso: ahead })
        : json(res, 500, { error: { code: 'X' } }),
    );
    try {
      const { code } = await cli(['login', '--api', api.url, '--key', keyFile, '--passport', 'bhahbkbramax']);
      expect(code).toBe(2);
      expect(api.seen).not.toContain('POST /api/login');
    } finally {
      await close(api.server);
    }
  });

  // docs/cli.md: verify "prints `verified subagent <delegateId> of <issuer> -> <recipient> (delegation
  // not checked)` … (it reads the form from the line, not from the API's answer)"; the code's comment:
  // "The line's own slots for … which delegate it names (an API may answer otherwise …)".
  it("verify prints the line's delegate id, not the one an API answers", async () => {
    const issuer = 'bhahbkbramax';
    const made = await cli([
      'hola',
      '--key',
      keyFile,
      '--passport',
      issuer,
      '--host',
      'api.example.com',
      '--subagent',
      'evil-bot',
    ]);
    expect(made.code).toBe(0);
    const api = await fakeApi((_req, _body, res) =>
      json(res, 200, {
        verified: true,
        peerTokenId: issuer,
        isSubagentFormat: true,
        delegateId: 'TRUSTED-BOT',
        failureReasons: [],
        checks: {},
      }),
    );
    try {
      const { code, out } = await cli(['verify', '--api', api.url, '--', made.out.trim()]);
      expect(code).toBe(3);
      expect(out).toBe(`verified subagent EVIL-BOT of ${issuer} -> MUNDO (delegation not checked)\n`);
    } finally {
      await close(api.server);
    }
  });

  // `--api http://host/#` (or `?`): the paths are appended into the fragment (or query), so `did` asked
  // GET / and printed the API's root document as the DID document, exit 0.
  it('did --api refuses a URL with a fragment or query instead of printing another document', async () => {
    const api = await fakeApi((_req, _body, res) => json(res, 200, { name: 'Passport Identity API' }));
    try {
      for (const suffix of ['/#', '/?']) {
        const { code, out } = await cli(['did', '--api', `${api.url}${suffix}`, 'bhahbkbramax']);
        expect(out).not.toContain('Passport Identity API');
        expect(code).toBe(2);
      }
    } finally {
      await close(api.server);
    }
  });

  // docs/cli.md: "`--api` and the offline flags (`--ledger`, `--near-rpc`, `--contract`, `--host`) are
  // alternatives: given together they stop the run (exit 2)"; verify's help: "Without --api and the
  // offline flags, the API is PASSPORT_API_URL". With PASSPORT_API_URL set, --host was dropped silently.
  it('verify with PASSPORT_API_URL set does not drop --host silently', async () => {
    const api = await fakeApi((_req, _body, res) =>
      json(res, 200, { verified: true, peerTokenId: 'bhahbkbramax', failureReasons: [], checks: {} }),
    );
    try {
      const made = await cli(['hola', '--key', keyFile, '--passport', 'bhahbkbramax', '--host', 'a.example']);
      const { code } = await cli(['verify', '--host', 'b.example', '--', made.out.trim()], {
        PASSPORT_API_URL: api.url,
      });
      expect(code).toBe(2);
      expect(api.seen).toEqual([]);
    } finally {
      await close(api.server);
    }
  });

  // cli.ts: "One printable line whatever it quotes" — but not for an unknown command's name.
  it('an unknown command is named in one printable line', async () => {
    const { code, err } = await cli(['bog\u001b[31mus\nsecond']);
    expect(code).toBe(2);
    expect(err.split('\n')).toHaveLength(2); // one line and its newline
    expect(err).not.toContain('\u001b');
  });

  // The same gap as login's: `hola --api` signed whatever timestamp /api/holanonce16ts answered, so a
  // server could have a line stamped for later, verified by the real API once that time came.
  it('hola refuses to sign a nonce timestamp far ahead of the local clock', async () => {
    const ahead = new Date(Date.now() + 3_600_000).toISOString();
    const api = await fakeApi((req, _body, res) => {
      if (req.url === '/') return json(res, 200, { hola: { serviceHost: new URL(api.url).host } });
      if (req.url === '/api/holanonce16ts')
        return json(res, 200, { timestamp: ahead, noncetsHex: 'AB'.repeat(16) });
      json(res, 404, {});
    });
    try {
      const { code, out, err } = await cli([
        'hola',
        '--api',
        api.url,
        '--jwt',
        'eyJhbGciOiJFZERTQSJ9.e30.c2ln',
        '--key',
        keyFile,
        '--passport',
        'bhahbkbramax',
      ]);
      expect(code).toBe(2);
      expect(out).toBe('');
      expect(err).toContain('ahead of this clock by more than 300 s; nothing was signed');
    } finally {
      await close(api.server);
    }
  });

  // A wrong path given as --key or --jwt-file (a disk image, /dev/zero) was read into memory whole
  // (600 MB in the probe) and then reported as "cannot read X (error)".
  it('refuses a --key or --jwt-file over 64 KiB without reading it whole, and says why', async () => {
    const big = join(dir, 'big.json');
    await writeFile(big, `{"account_id":"${'a'.repeat(70_000)}"}`);
    for (const args of [
      ['hola', '--key', big, '--passport', 'bhahbkbramax', '--host', 'a.example'],
      ['hola', '--key', '/dev/zero', '--passport', 'bhahbkbramax', '--host', 'a.example'],
      ['nonce', '--api', 'http://127.0.0.1:9', '--jwt-file', '/dev/zero'],
    ]) {
      const { code, err } = await cli(args);
      expect(code).toBe(2);
      expect(err).toMatch(/holds more than 65536 bytes: not a (credentials file|JWT)\n$/);
    }
  });

  describe('mint with a development family', () => {
    let env: Record<string, string>;
    beforeEach(async () => {
      await ensureDevFamily(loadConfig({ DATA_DIR: dir, PUBLIC_BASE_URL: 'http://localhost:4556' }));
      env = { DATA_DIR: dir };
    });

    const ledgerUrls = async (): Promise<string[]> =>
      ((JSON.parse(await readFile(join(dir, 'ledger.json'), 'utf8')) as LedgerDocument).passports ?? []).map(
        (p) => p.metadata.subjectuniqueidentifier_url,
      );

    // mint's own rule for --api ("clients call it, so it is a URL they can call") is bypassed through
    // PUBLIC_BASE_URL, which is written unchecked: such a passport is refused by every login.
    it.each(['javascript:alert(1)', 'http://localhost:4556/?q#f', 'http://user:pw@localhost:4556'])(
      'refuses PUBLIC_BASE_URL %j as the passport URL, as the server refuses it',
      async (value) => {
        const before = await ledgerUrls();
        const { code } = await cli(['mint', '--key', keyFile], { ...env, PUBLIC_BASE_URL: value });
        expect(code).toBe(2);
        expect(await ledgerUrls()).toEqual(before);
      },
    );

    // The server reads an empty PUBLIC_BASE_URL as unset; mint wrote "" as the passport's URL.
    it('reads an empty PUBLIC_BASE_URL as unset (the family server URL), as the server does', async () => {
      const { code, out } = await cli(['mint', '--key', keyFile], { ...env, PUBLIC_BASE_URL: '' });
      expect(code).toBe(0);
      const ledger = JSON.parse(await readFile(join(dir, 'ledger.json'), 'utf8')) as LedgerDocument;
      const minted = ledger.passports.find((p) => p.token_id === out.trim())!;
      expect(minted.metadata.subjectuniqueidentifier_url).toBe('http://localhost:4556');
    });

    // `keygen --account alice.near` then `mint --key alice.json`: exit 0, but the ledger's `accounts` had no
    // key for alice.near, so every login of the passport was LOGIN_BASE64URL_SIGNATURE_INVALID and its DID
    // document had no verification method. The key in hand is recorded once, beside the account's others.
    it("mint --key with a named account records the account's key in the ledger, once", async () => {
      const named = join(dir, 'alice.json');
      expect((await cli(['keygen', '--out', named, '--account', 'alice.near'])).code).toBe(0);
      const publicKey = (JSON.parse(await readFile(named, 'utf8')) as { public_key: string }).public_key;
      const accounts = async () =>
        (JSON.parse(await readFile(join(dir, 'ledger.json'), 'utf8')) as LedgerDocument).accounts;
      expect((await cli(['mint', '--key', named], env)).code).toBe(0);
      expect((await accounts())['alice.near']).toEqual([publicKey]);
      expect((await cli(['mint', '--key', named], env)).code).toBe(0);
      expect((await accounts())['alice.near']).toEqual([publicKey]);
      // A review: any key file naming alice.near added its key to hers, and it logged in as her passports.
      // Another key for an account with keys is refused, nothing written, unless --add-account-key.
      const other = join(dir, 'alice-2.json');
      expect((await cli(['keygen', '--out', other, '--account', 'alice.near'])).code).toBe(0);
      const passportsBefore = (JSON.parse(await readFile(join(dir, 'ledger.json'), 'utf8')) as LedgerDocument)
        .passports.length;
      const refused = await cli(['mint', '--key', other], env);
      expect([refused.code, refused.err]).toEqual([2, expect.stringContaining('--add-account-key')]);
      const after = JSON.parse(await readFile(join(dir, 'ledger.json'), 'utf8')) as LedgerDocument;
      expect([after.passports.length, after.accounts['alice.near']]).toEqual([passportsBefore, [publicKey]]);
      expect((await cli(['mint', '--key', other, '--add-account-key'], env)).code).toBe(0);
      const otherKey = (JSON.parse(await readFile(other, 'utf8')) as { public_key: string }).public_key;
      expect((await accounts())['alice.near']).toEqual([publicKey, otherKey]);
      // An implicit account's key is its name: nothing is recorded for it.
      expect((await cli(['mint', '--key', keyFile], env)).code).toBe(0);
      expect(Object.keys(await accounts())).toEqual(['alice.near']);
    });

    // --admin-route took paths the parser accepts and no route of this service is (the router keeps case,
    // an empty segment and a trailing slash): each granted nothing (403 on /api/metrics, 404 on itself).
    it.each(['/API/METRICS', '/api//metrics', '/api/metrics/'])(
      'refuses --admin-route %s, which names no route of this service',
      async (route) => {
        const { code, err } = await cli(['mint', '--key', keyFile, '--admin-route', route], env);
        expect(code).toBe(2);
        expect(err).toContain('lower case, no empty segment or trailing slash');
      },
    );

    it('refuses one --admin-route given twice with different rates, and takes it twice with one', async () => {
      const twice = await cli(
        ['mint', '--key', keyFile, '--admin-route', '/api/metrics=1', '--admin-route', '/api/metrics=2'],
        env,
      );
      expect(twice.code).toBe(2);
      expect(twice.err).toContain('given twice with different rates');
      const same = await cli(
        [
          'mint',
          '--key',
          keyFile,
          '--admin-route',
          '/api/metrics=1',
          '--admin-route',
          '/api/metrics=1',
          '--json',
        ],
        env,
      );
      expect(same.code).toBe(0);
      expect(JSON.parse(same.out).metadata.permissioned_routes).toBe(
        '{"entities":{"methods":{"/api/metrics":"1"}}}',
      );
    });

    // --api took credentials, a query and a fragment (an http(s) scheme was the only check): the CLI's
    // own `did --ledger` then refuses the passport it minted.
    it('refuses --api with credentials, a query or a fragment', async () => {
      for (const value of [
        'http://user:pw@localhost:4556',
        'http://localhost:4556/?q',
        'http://localhost:4556/#f',
      ]) {
        const { code } = await cli(['mint', '--key', keyFile, '--api', value], env);
        expect(code).toBe(2);
      }
    });

    // A probe: --api with credentials was taken by the calling commands, and every call then failed as
    // "cannot reach … (TypeError)" (fetch refuses such URLs); the value is refused up front, unquoted.
    it('the calling commands refuse an --api with credentials before any call, without quoting them', async () => {
      for (const args of [
        ['nonce'],
        ['did', 'bjbvcjzqbdsj'],
        ['login', '--key', keyFile, '--passport', 'bjbvcjzqbdsj'],
      ]) {
        const run = await cli([...args, '--api', 'http://user:S3CRET@127.0.0.1:9'], env);
        expect(run.code).toBe(2);
        expect(run.err).toContain('--api must be an http(s) URL without credentials, query or fragment');
        expect(run.err).not.toContain('S3CRET');
      }
    });
  });
});
