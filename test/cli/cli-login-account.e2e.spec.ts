/**
 * `passport login --account` logs in as the first passport the key's account owns (docs/protocol.md §3),
 * and anyone can transfer a passport to an account without its consent: the run names the passport it
 * became on stderr (the JWT alone says it to no reader; `--json` carries it as `passportid` too).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { formatNearCredentials, nearCredentialsFromSeed } from '@passport/core';
import { runCliCaptured } from '../support/run-cli.js';
import { mintPassport, newKey } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const cli = runCliCaptured;

describe('passport login --account names the passport it logged in as', () => {
  let app: TestApp;
  let dir: string;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
    dir = await mkdtemp(path.join(tmpdir(), 'passport-cli-account-'));
  });
  afterAll(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('an account with two passports (one pushed to it) says which one it became', async () => {
    const key = newKey();
    const first = await mintPassport(app, { owner: key });
    // Another holder's passport transferred to this account, unasked.
    const pushed = await mintPassport(app, { owner: key.accountId });
    expect(pushed.tokenId).not.toBe(first.tokenId);
    const keyFile = path.join(dir, 'key.json');
    await writeFile(keyFile, JSON.stringify(formatNearCredentials(nearCredentialsFromSeed(key.seed))), {
      mode: 0o600,
    });

    const run = await cli(['login', '--api', app.baseUrl, '--key', keyFile, '--account']);
    expect(run.code).toBe(0);
    expect(run.out.trim().split('.')).toHaveLength(3);
    expect(run.err).toBe(
      `logged in as passport ${first.tokenId}, the first one account ${key.accountId} owns (--passport <tokenId> logs in as a given one)\n`,
    );

    const json = await cli(['login', '--api', app.baseUrl, '--key', keyFile, '--account', '--json']);
    expect(json.code).toBe(0);
    expect((JSON.parse(json.out) as { passportid: string }).passportid).toBe(first.tokenId);
    expect(json.err).toContain(`logged in as passport ${first.tokenId}`);

    // The --passport form names its passport itself: nothing more is said.
    const chosen = await cli(['login', '--api', app.baseUrl, '--key', keyFile, '--passport', pushed.tokenId]);
    expect([chosen.code, chosen.err]).toEqual([0, '']);
  });
});
