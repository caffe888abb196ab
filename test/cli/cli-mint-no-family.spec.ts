/**
 * `passport mint` where the server's development family is not: the family-root key and the ledger are
 * the server's first start's, in its DATA_DIR. A new user whose server ran with another DATA_DIR (or
 * from another directory) read only `cannot read ./data/keys/family-root.json (ENOENT)` (a walkthrough):
 * the line now says what to do. A file named by a flag or a variable keeps its plain refusal.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureDevFamily } from '@passport/adapters/ledger';
import { loadConfig } from '../../apps/api/src/platform/config/app-config.js';
import { runCliCaptured } from '../support/run-cli.js';

const cli = runCliCaptured;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'passport-cli-no-family-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

it('a DATA_DIR without a family: one line naming the directory, the server start, DATA_DIR and the flags; exit 2', async () => {
  const data = path.join(dir, 'empty');
  await mkdir(data);
  const run = await cli(['mint', '--owner', 'alice.near'], { DATA_DIR: data });
  expect([run.code, run.out]).toEqual([2, '']);
  expect(run.err).toBe(
    `passport mint: cannot read ${data}/keys/family-root.json (ENOENT): no development family in DATA_DIR ${data} (${data}), where the family-root key would be. The API's first start creates it in its DATA_DIR: start it once, and run this tool with the same DATA_DIR (or give --ledger and --family-key)\n`,
  );
});

it('the default ./data, relative: the line gives the directory it was read from', async () => {
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    const run = await cli(['mint', '--owner', 'alice.near']);
    expect(run.code).toBe(2);
    expect(run.err).toContain(
      `cannot read ./data/keys/family-root.json (ENOENT): no development family in DATA_DIR ./data (${path.join(dir, 'data')})`,
    );
  } finally {
    process.chdir(cwd);
  }
});

it('a family key without its ledger: the same advice, naming the ledger', async () => {
  const data = path.join(dir, 'no-ledger');
  await ensureDevFamily(loadConfig({ DATA_DIR: data }));
  await rm(path.join(data, 'ledger.json'));
  const run = await cli(['mint', '--owner', 'alice.near'], { DATA_DIR: data });
  expect(run.code).toBe(2);
  expect(run.err).toMatch(
    /^passport mint: cannot read .*\/no-ledger\/ledger\.json \(ENOENT\): no development family in DATA_DIR .*, where the ledger would be\. .*start it once, and run this tool with the same DATA_DIR \(or give --ledger and --family-key\)\n$/,
  );
});

it('a --family-key or FAMILY_CREDENTIALS_FILE that names no file keeps its plain refusal', async () => {
  const none = path.join(dir, 'none.json');
  const flag = await cli(['mint', '--owner', 'alice.near', '--family-key', none], { DATA_DIR: dir });
  expect([flag.code, flag.err]).toEqual([2, `passport mint: cannot read ${none} (ENOENT)\n`]);
  const env = await cli(['mint', '--owner', 'alice.near'], { DATA_DIR: dir, FAMILY_CREDENTIALS_FILE: none });
  expect([env.code, env.err]).toEqual([2, `passport mint: cannot read ${none} (ENOENT)\n`]);
});
