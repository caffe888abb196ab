/**
 * A flag given blank is refused as an empty one is (docs/cli.md: "A flag given empty or blank … is
 * refused … before anything is read or asked (`--api`, `--key`, …)"). A review found the flags read by
 * a shared helper instead of `refuseEmptyFlags` took a blank value for a file name: `login --key ' '`
 * said "cannot read   (ENOENT)" (`hola --key ' '` and `mint --key ' '` say "is empty"), `--jwt-file ' '`
 * read a file named " " (`--jwt-file ''` is "is empty"), and `login --save ' '` logged in and wrote the
 * token to a file named " " in the working directory (`keygen --out ' '` is refused).
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDevFamily } from '@passport/adapters/ledger';
import { runCliAnswering, runCliCaptured, type CountedCliRun } from '../support/run-cli.js';
import { loadConfig } from '../../apps/api/src/platform/config/app-config.js';

const API = 'http://127.0.0.1:9';

function run(args: string[], env: Record<string, string> = {}): Promise<CountedCliRun> {
  return runCliAnswering(args, env, () => ({}));
}

describe('a blank flag is refused as an empty one', () => {
  let dir: string;
  let keyFile: string;
  const cwd = process.cwd();
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'passport-blank-flags-'));
    await ensureDevFamily(loadConfig({ DATA_DIR: dir }));
    keyFile = join(dir, 'me.json');
    expect((await runCliCaptured(['keygen', '--out', keyFile])).code).toBe(0);
    process.chdir(dir);
  });
  afterAll(async () => {
    process.chdir(cwd);
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['login --key', () => ['login', '--api', API, '--key', ' ', '--passport', 'bhahbkbramax']],
    ['nonce --jwt-file', () => ['nonce', '--api', API, '--jwt-file', ' ']],
    [
      'hola --jwt-file',
      () => ['hola', '--key', keyFile, '--passport', 'bhahbkbramax', '--api', API, '--jwt-file', ' '],
    ],
  ])('a blank %s is refused as empty', async (flag, args) => {
    const result = await run(args(), { DATA_DIR: dir });
    expect(result).toEqual({
      code: 2,
      out: '',
      err: `passport ${flag.split(' ')[0]}: ${flag.split(' ')[1]} is empty (an unset variable?)\n`,
      calls: 0,
    });
  });

  it('a blank login --save is refused before the login, and no file named " " is written', async () => {
    const result = await run([
      'login',
      '--api',
      API,
      '--key',
      keyFile,
      '--passport',
      'bhahbkbramax',
      '--save',
      ' ',
    ]);
    expect(result).toMatchObject({ code: 2, out: '', calls: 0, err: expect.stringContaining('--save') });
    expect(await readdir(dir)).not.toContain(' ');
  });
});
