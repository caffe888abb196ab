/**
 * `passport did` (and `verify`, which shares the offline chain flags) uses every flag it is given or
 * refuses it: exit 2, one line naming the flag, nothing on stdout, no request. A probe found flags
 * silently dropped: `--public-url` in an API run (`--api`, or PASSPORT_API_URL with no offline flag),
 * `--contract` with `--ledger` (a ledger names its own contract) or alone with PASSPORT_API_URL set, and an
 * empty `--ledger`/`--near-rpc` (an unset variable) with PASSPORT_API_URL set.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDevFamily } from '@passport/adapters/ledger';
import { runCliAnswering, runCliCaptured, type CountedCliRun } from '../support/run-cli.js';
import { loadConfig } from '../../apps/api/src/platform/config/app-config.js';

const API = 'http://127.0.0.1:9';
const TOKEN = 'bhahbkbramax';

/** Runs the CLI in-process; requests are answered with a DID document and counted. */
function run(args: string[], env: Record<string, string> = {}): Promise<CountedCliRun> {
  return runCliAnswering(args, env, () => ({ id: `did:passport:${TOKEN}` }));
}

describe('passport did: every flag given is used or refused', () => {
  let dir: string;
  let ledger: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'passport-did-flags-'));
    await ensureDevFamily(loadConfig({ DATA_DIR: dir }));
    ledger = join(dir, 'ledger.json');
    const minted = await runCliCaptured(['mint', '--owner', 'alice.near', '--token-id', TOKEN], {
      DATA_DIR: dir,
    });
    expect([minted.code, minted.out.trim()]).toEqual([0, TOKEN]);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.each([
    [
      '--public-url with --api',
      ['did', TOKEN, '--api', API, '--public-url', 'https://id.example'],
      {},
      '--public-url',
    ],
    [
      '--public-url when PASSPORT_API_URL makes it an API run',
      ['did', TOKEN, '--public-url', 'https://id.example'],
      { PASSPORT_API_URL: API },
      '--public-url',
    ],
    [
      '--contract alone with PASSPORT_API_URL set',
      ['did', TOKEN, '--contract', 'other.near'],
      { PASSPORT_API_URL: API },
      '--contract',
    ],
    [
      'an empty --ledger with PASSPORT_API_URL set',
      ['did', TOKEN, '--ledger', ''],
      { PASSPORT_API_URL: API },
      '--ledger',
    ],
    [
      'an empty --near-rpc with PASSPORT_API_URL set',
      ['did', TOKEN, '--near-rpc', '', '--contract', 'c.near'],
      { PASSPORT_API_URL: API },
      '--near-rpc',
    ],
  ])('%s is refused (exit 2, no request)', async (_case, args, env, flag) => {
    const result = await run(args, env);
    expect(result).toEqual({ code: 2, out: '', err: expect.stringContaining(flag), calls: 0 });
    expect(result.err).toMatch(/^passport did: [^\n]*\n$/);
  });

  it('--contract with --ledger is refused: the ledger names its own contract (did and verify)', async () => {
    const did = await run(['did', TOKEN, '--ledger', ledger, '--contract', 'other.near']);
    expect(did).toEqual({
      code: 2,
      out: '',
      err: expect.stringMatching(/^passport did: --contract [^\n]*\n$/),
      calls: 0,
    });
    const verify = await run([
      'verify',
      '--ledger',
      ledger,
      '--contract',
      'other.near',
      '--host',
      'localhost:3000',
      '--',
      'HOLA/x',
    ]);
    expect(verify).toMatchObject({
      code: 2,
      out: '',
      err: expect.stringMatching(/^passport verify: --contract /),
    });
  });

  it('what is used stays accepted: --public-url offline, PUBLIC_BASE_URL beside --api, --api alone', async () => {
    const offline = await run(['did', TOKEN, '--ledger', ledger, '--public-url', 'https://id.example']);
    expect([offline.code, offline.out]).toEqual([0, expect.stringContaining('https://id.example/')]);
    // With PASSPORT_API_URL set, an offline flag makes the run offline and --public-url is used.
    const envOffline = await run(['did', TOKEN, '--ledger', ledger, '--public-url', 'https://id.example'], {
      PASSPORT_API_URL: API,
    });
    expect([envOffline.code, envOffline.calls, envOffline.out]).toEqual([
      0,
      0,
      expect.stringContaining('https://id.example/'),
    ]);
    // An environment variable is no flag: a stray PUBLIC_BASE_URL does not break an API run.
    const api = await run(['did', TOKEN, '--api', API], { PUBLIC_BASE_URL: 'https://env.example' });
    expect([api.code, api.calls]).toEqual([0, 1]);
  });
});
