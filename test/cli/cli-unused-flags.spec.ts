/**
 * Flags that a run would not use are refused (exit 2, one line naming the flag, nothing on stdout, no
 * request), as `did` refuses them: a probe found `hola` and `nonce` dropping `--jwt-file` beside `--jwt`
 * (its renewal not saved either), `hola` dropping `--jwt`/`--jwt-file` offline (`--host`) or with a
 * nonce of the user's own (`--timestamp`/`--nonce`), and `--api` when `--host` and the nonce are given,
 * and `mint` dropping `--add-account-key` without a `--key` of a named account and an empty `--key`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDevFamily } from '@passport/adapters/ledger';
import { runCliAnswering, runCliCaptured, type CountedCliRun } from '../support/run-cli.js';
import { loadConfig } from '../../apps/api/src/platform/config/app-config.js';

const API = 'http://127.0.0.1:9';
const JWT = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2ln';
const FIXED = ['--timestamp', new Date().toISOString(), '--nonce', '4F9A3C7E2D1B9A4CDEADBEEFCAFEBABE'];

/** Runs the CLI in-process; requests are answered like the API and counted. */
function run(args: string[], env: Record<string, string> = {}): Promise<CountedCliRun> {
  return runCliAnswering(args, env, (url) =>
    url.pathname === '/api/holanonce16ts'
      ? { timestamp: new Date().toISOString(), noncetsHex: 'ABCDEF0123456789ABCDEF0123456789' }
      : { hola: { serviceHost: '127.0.0.1:9' } },
  );
}

describe('flags a run would not use are refused', () => {
  let dir: string;
  let keyFile: string;
  let jwtFile: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'passport-unused-flags-'));
    await ensureDevFamily(loadConfig({ DATA_DIR: dir }));
    keyFile = join(dir, 'me.json');
    jwtFile = join(dir, 'my.jwt');
    expect((await runCliCaptured(['keygen', '--out', keyFile])).code).toBe(0);
    await writeFile(jwtFile, `${JWT}\n`);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const hola = (): string[] => ['hola', '--key', keyFile, '--passport', 'bhahbkbramax'];

  it.each([
    [
      'nonce: --jwt beside --jwt-file',
      () => ['nonce', '--api', API, '--jwt', JWT, '--jwt-file', jwtFile],
      '--jwt',
    ],
    [
      'hola --api: --jwt beside --jwt-file',
      () => [...hola(), '--api', API, '--jwt', JWT, '--jwt-file', jwtFile],
      '--jwt',
    ],
    [
      'hola offline (--host): --jwt-file',
      () => [...hola(), '--host', 'localhost:3000', '--jwt-file', jwtFile],
      '--jwt-file',
    ],
    ['hola offline (--host): --jwt', () => [...hola(), '--host', 'localhost:3000', '--jwt', JWT], '--jwt'],
    [
      'nonce: an empty --jwt (an unset variable)',
      () => ['nonce', '--api', API, '--jwt', ''],
      '--jwt is empty',
    ],
    [
      'hola with its own nonce: --jwt-file',
      () => [...hola(), '--api', API, ...FIXED, '--jwt-file', jwtFile],
      '--jwt-file',
    ],
    // An unset variable (`--api "$API"`) beside --host made an offline line without a word (its nonce
    // the tool's own, not the API's), and dropped --jwt with it.
    ['hola with --host: an empty --api', () => [...hola(), '--host', 'localhost:3000', '--api', ''], '--api'],
    [
      'hola with --host: an empty --api and --jwt',
      () => [...hola(), '--host', 'localhost:3000', '--api', '', '--jwt', JWT],
      '--',
    ],
    [
      'hola --api with --host and its own nonce: --api',
      () => [...hola(), '--api', API, '--host', 'localhost:3000', ...FIXED],
      '--api',
    ],
  ])('%s', async (_case, args, flag) => {
    const result = await run(args());
    expect(result).toEqual({ code: 2, out: '', err: expect.stringContaining(flag), calls: 0 });
    expect(result.err).toMatch(/^passport (hola|nonce): [^\n]*\n$/);
  });

  // An unset variable (`--jwt-file "$JWT_FILE"`) must not send the run to PASSPORT_JWT.
  it('an empty --jwt-file is refused, PASSPORT_JWT set or not (nonce, hola)', async () => {
    for (const env of [{}, { PASSPORT_JWT: JWT }] as Array<Record<string, string>>) {
      for (const args of [
        ['nonce', '--api', API, '--jwt-file', ''],
        [...hola(), '--api', API, '--jwt-file', ''],
      ]) {
        const result = await run(args, env);
        expect(result).toEqual({
          code: 2,
          out: '',
          err: expect.stringMatching(/^passport (nonce|hola): --jwt-file is empty[^\n]*\n$/),
          calls: 0,
        });
      }
    }
  });

  it('mint: --add-account-key without --key of a named account, and an empty --key, are refused', async () => {
    const env = { DATA_DIR: dir };
    const owner = await run(['mint', '--owner', 'bob.near', '--add-account-key'], env);
    expect(owner).toMatchObject({ code: 2, out: '', err: expect.stringContaining('--add-account-key') });
    const implicit = await run(['mint', '--key', keyFile, '--add-account-key'], env);
    expect(implicit).toMatchObject({ code: 2, out: '', err: expect.stringContaining('--add-account-key') });
    const empty = await run(['mint', '--key', '', '--owner', 'bob.near'], env);
    expect(empty).toMatchObject({ code: 2, out: '', err: expect.stringContaining('--key') });
    // An empty --owner beside a --key is said as such (not "--key or --owner is required").
    const emptyOwner = await run(['mint', '--key', keyFile, '--owner', ''], env);
    expect(emptyOwner).toMatchObject({ code: 2, out: '', err: expect.stringContaining('--owner is empty') });
  });

  // An empty value (`--ledger "$LEDGER"` with the variable unset) is refused naming its flag, before
  // anything is read or asked: a probe found `mint --ledger ''` saying "cannot read  (ENOENT)", `hola
  // --api ''` with PASSPORT_API_URL set saying "or set PASSPORT_API_URL", and others saying "is required"
  // of a flag that was given (or, `hola --api A --host ''`, asking the API for a nonce first).
  const LINE = `HOLA/MUNDO/BHAHBKBRAMAX/${new Date().toISOString()}/4F9A3C7E2D1B9A4CDEADBEEFCAFEBABE/LOCALHOST:3000/AAAA/M`;
  it.each([
    ['mint --ledger', () => ['mint', '--key', keyFile, '--ledger', '']],
    ['mint --family-key', () => ['mint', '--key', keyFile, '--family-key', '']],
    ['mint --dn', () => ['mint', '--key', keyFile, '--dn', '']],
    ['hola --api', () => [...hola(), '--api', '']],
    ['hola --api', () => [...hola(), '--api', ' ']],
    ['hola --host', () => [...hola(), '--host', '']],
    ['hola --host', () => [...hola(), '--api', API, '--host', '', '--jwt', JWT]],
    ['hola --key', () => ['hola', '--key', '', '--passport', 'bhahbkbramax', '--host', 'localhost:3000']],
    ['hola --passport', () => ['hola', '--key', keyFile, '--passport', '', '--host', 'localhost:3000']],
    [
      'hola --timestamp',
      () => [...hola(), '--host', 'localhost:3000', '--timestamp', '', '--nonce', FIXED[3]],
    ],
    ['login --api', () => ['login', '--api', '', '--key', keyFile, '--passport', 'bhahbkbramax']],
    ['login --key', () => ['login', '--key', '', '--passport', 'bhahbkbramax']],
    ['login --passport', () => ['login', '--key', keyFile, '--passport', '']],
    ['nonce --api', () => ['nonce', '--api', '', '--jwt', JWT]],
    ['verify --api', () => ['verify', '--api', '', '--', LINE]],
    ['verify --host', () => ['verify', '--ledger', join(dir, 'ledger.json'), '--host', '', '--', LINE]],
    ['did --api', () => ['did', '--api', '', 'bhahbkbramax']],
    ['did --ledger', () => ['did', '--ledger', ' ', 'bhahbkbramax']],
    ['verify --near-rpc', () => ['verify', '--near-rpc', ' ', '--contract', 'c', '--host', 'h', '--', LINE]],
    [
      'delegate --key',
      () => [
        'delegate',
        '--key',
        '',
        '--passport',
        'bhahbkbramax',
        '--delegate-id',
        'w',
        '--subagent-key',
        keyFile,
      ],
    ],
    [
      'delegate --passport',
      () => ['delegate', '--key', keyFile, '--passport', '', '--delegate-id', 'w', '--subagent-key', keyFile],
    ],
    [
      'delegate --subagent-key',
      () => [
        'delegate',
        '--key',
        keyFile,
        '--passport',
        'bhahbkbramax',
        '--delegate-id',
        'w',
        '--subagent-key',
        '',
      ],
    ],
    ['keygen --out', () => ['keygen', '--out', '']],
  ])('an empty %s is refused as empty', async (flag, args) => {
    const result = await run(args(), { DATA_DIR: dir, PASSPORT_API_URL: API });
    expect(result).toEqual({
      code: 2,
      out: '',
      err: `passport ${flag.split(' ')[0]}: ${flag.split(' ')[1]} is empty (an unset variable?)\n`,
      calls: 0,
    });
  });

  // A docs probe: with PASSPORT_API_URL set, `verify --host h LINE` (offline, no chain named) said "give
  // --api <url> (or set PASSPORT_API_URL)", though it was set: --host is what made the run offline.
  it('verify --host without a chain says that --host made the run offline, PASSPORT_API_URL set or not', async () => {
    for (const env of [{}, { PASSPORT_API_URL: API }] as Array<Record<string, string>>) {
      const result = await run(['verify', '--host', 'localhost:3000', '--', LINE], env);
      expect(result).toEqual({
        code: 2,
        out: '',
        err: 'passport verify: --host checks offline: give --ledger <file> or --near-rpc <url> --contract <id> (or leave out --host to verify at the API)\n',
        calls: 0,
      });
    }
  });

  it('what is used stays accepted', async () => {
    expect((await run([...hola(), '--api', API, '--jwt-file', jwtFile])).code).toBe(0);
    expect((await run([...hola(), '--api', API, ...FIXED])).code).toBe(0);
    expect((await run([...hola(), '--api', API, '--host', 'localhost:3000', '--jwt', JWT])).code).toBe(0);
    expect((await run([...hola(), '--host', 'localhost:3000', ...FIXED])).code).toBe(0);
    expect((await run(['nonce', '--api', API, '--jwt-file', jwtFile])).code).toBe(0);
  });
});
