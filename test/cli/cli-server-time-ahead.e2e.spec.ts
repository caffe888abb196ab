/**
 * What the CLI signs for a server's time: a login challenge or a HOLA nonce timestamp more than 300 s
 * (SERVER_TIME_AHEAD_MAX_MS) ahead of this machine's clock is refused before anything is signed; within
 * it, signed. The real app, its clock (the core's FixedClock) set ahead of the machine's.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { formatNearCredentials, nearCredentialsFromSeed } from '@passport/core';
import { FixedClock } from '@passport/core/testing';
import { runCliCaptured } from '../support/run-cli.js';
import { mintAndLogin } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const cli = runCliCaptured;

describe('passport login and hola --api with a server clock ahead of this one', () => {
  let app: TestApp;
  let clock: FixedClock;
  let dir: string;
  beforeAll(async () => {
    clock = new FixedClock(Math.floor(Date.now() / 1000) * 1000);
    app = await startTestApp({ STORE: 'memory' }, { clock });
    dir = await mkdtemp(path.join(tmpdir(), 'passport-cli-ahead-'));
  });
  afterAll(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  // Fails on mutant: the bound was ten times 300 s, and a challenge or nonce 400 s ahead was signed.
  it('refuses a challenge or nonce 400 s ahead, and signs one 120 s ahead', async () => {
    clock.set(Math.floor(Date.now() / 1000) * 1000);
    const { tokenId, jwt, key } = await mintAndLogin(app);
    const keyFile = path.join(dir, 'key.json');
    await writeFile(keyFile, JSON.stringify(formatNearCredentials(nearCredentialsFromSeed(key.seed))), {
      mode: 0o600,
    });
    const login = ['login', '--api', app.baseUrl, '--key', keyFile, '--passport', tokenId];
    const hola = ['hola', '--api', app.baseUrl, '--jwt', jwt, '--key', keyFile, '--passport', tokenId];

    clock.set(Math.floor(Date.now() / 1000) * 1000 + 400_000);
    const lateLogin = await cli(login);
    expect([lateLogin.code, lateLogin.out]).toEqual([2, '']);
    expect(lateLogin.err).toMatch(
      /^passport login: \/api\/login\/timestamp answered \S+, ahead of this clock by more than 300 s; nothing was signed\n$/,
    );
    const lateHola = await cli(hola);
    expect([lateHola.code, lateHola.out]).toEqual([2, '']);
    expect(lateHola.err).toMatch(
      /^passport hola: \/api\/holanonce16ts answered \S+, ahead of this clock by more than 300 s; nothing was signed\n$/,
    );

    clock.set(Math.floor(Date.now() / 1000) * 1000 + 120_000);
    const inTimeLogin = await cli(login);
    expect([inTimeLogin.code, inTimeLogin.err]).toEqual([0, '']);
    expect(inTimeLogin.out.trim().split('.')).toHaveLength(3);
    const inTimeHola = await cli(hola);
    expect([inTimeHola.code, inTimeHola.err]).toEqual([0, '']);
    expect(inTimeHola.out).toMatch(new RegExp(`^HOLA/MUNDO/${tokenId.toUpperCase()}/`));
  });
});
