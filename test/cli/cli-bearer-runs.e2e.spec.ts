/**
 * Bearer commands (`nonce`, `logout`) against the real app served at another URL than the one it is
 * reached by (PUBLIC_BASE_URL https://id.example.test/identity, reached at 127.0.0.1, as behind a
 * proxy), time driven by the core's FixedClock: the edges a mutation probe of the CLI found unpinned.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { formatNearCredentials, nearCredentialsFromSeed } from '@passport/core';
import { FixedClock } from '@passport/core/testing';
import { runCliCaptured as cli } from '../support/run-cli.js';
import { mintPassport, newKey } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PUBLIC = 'https://id.example.test/identity';

describe('passport nonce and logout with a JWT of an API reached by another URL', () => {
  let app: TestApp;
  let clock: FixedClock;
  let dir: string;
  beforeAll(async () => {
    clock = new FixedClock(Math.floor(Date.now() / 1000) * 1000);
    app = await startTestApp({ STORE: 'memory', PUBLIC_BASE_URL: PUBLIC }, { clock });
    dir = await mkdtemp(path.join(tmpdir(), 'passport-cli-bearer-'));
  });
  afterAll(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A JWT from `passport login` at the internal URL (its iss names PUBLIC). */
  async function loggedIn(): Promise<string> {
    clock.set(Math.floor(Date.now() / 1000) * 1000);
    const key = newKey();
    const keyFile = path.join(dir, `${key.accountId}.json`);
    await writeFile(keyFile, JSON.stringify(formatNearCredentials(nearCredentialsFromSeed(key.seed))), {
      mode: 0o600,
    });
    const minted = await mintPassport(app, { owner: key, metadata: { subjectuniqueidentifier_url: PUBLIC } });
    const run = await cli(['login', '--api', app.baseUrl, '--key', keyFile, '--passport', minted.tokenId]);
    expect([run.code, run.err]).toEqual([0, '']);
    return run.out.trim();
  }

  // Fails on mutant: the renewing fetch took New-Token only from the server the token's iss names, so a
  // run at the --api given (the internal URL) left --jwt-file with the old token.
  it('rewrites --jwt-file with the renewal the --api given answers, not only the URL the token names', async () => {
    const jwt = await loggedIn();
    const claims = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));
    expect(claims.iss).toBe(PUBLIC);
    const file = path.join(dir, 'agent.jwt');
    await writeFile(file, `${jwt}\n`, { mode: 0o600 });
    clock.set((claims.iat + 3000) * 1000);
    const run = await cli(['nonce', '--api', app.baseUrl, '--jwt-file', file]);
    expect([run.code, run.err]).toEqual([0, '']);
    const saved = (await readFile(file, 'utf8')).trim();
    expect(saved).not.toBe(jwt);
    expect(JSON.parse(Buffer.from(saved.split('.')[1], 'base64url').toString('utf8'))).toMatchObject({
      session_id: claims.session_id,
      iat: claims.iat + 3000,
    });
  });

  // Fails on mutant: PASSPORT_JWT was taken untrimmed, and a value with a newline (read from a file
  // into a variable) was refused as no JWT.
  it('reads PASSPORT_JWT with surrounding whitespace as the token', async () => {
    const jwt = await loggedIn();
    const run = await cli(['nonce', '--api', app.baseUrl], { PASSPORT_JWT: ` ${jwt}\n` });
    expect([run.code, run.err]).toEqual([0, '']);
    expect(run.out).toMatch(/^\S+ [0-9A-F]{32}\n$/);
  });

  // Fails on mutant: a --reason of 101 characters was sent (the server keeps at most 100 and would drop it).
  it('logout takes a --reason of 100 characters and refuses one of 101 before any request', async () => {
    const jwt = await loggedIn();
    const long = await cli(['logout', '--api', app.baseUrl, '--jwt', jwt, '--reason', 'r'.repeat(101)]);
    expect([long.code, long.out, long.err]).toEqual([
      2,
      '',
      'passport logout: --reason must be 1-100 printable ASCII characters\n',
    ]);
    const kept = await cli(['logout', '--api', app.baseUrl, '--jwt', jwt, '--reason', 'r'.repeat(100)]);
    expect([kept.code, kept.err]).toEqual([0, '']);
    expect(kept.out).toMatch(/^logged out: session \S+ closed\n$/);
  });
});
