/**
 * The CLI in front of a deployment reached by another URL than its PUBLIC_BASE_URL (an operator on the
 * internal address of an API served at https://host/identity by a proxy) and behind redirects.
 * Found by a CLI operator probe; these tests fail on the code they were written against.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { formatNearCredentials, nearCredentialsFromSeed } from '@passport/core';
import { runCliCaptured as cli } from '../support/run-cli.js';
import { mintPassport, newKey } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PUBLIC = 'https://id.example.test/identity';

/** A server on 127.0.0.1 that answers every request `status` with Location `target` + the request's path. */
async function redirector(status: number, target: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    res.writeHead(status, { location: `${target}${req.url ?? '/'}`, 'content-length': '0' });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, server };
}

describe('passport login against an API reached by another URL than its PUBLIC_BASE_URL', () => {
  let app: TestApp;
  let dir: string;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory', PUBLIC_BASE_URL: PUBLIC });
    dir = await mkdtemp(path.join(tmpdir(), 'passport-cli-proxy-'));
  });
  afterAll(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function keyFileFor(name: string) {
    const key = newKey();
    const keyFile = path.join(dir, `${name}.json`);
    await writeFile(keyFile, JSON.stringify(formatNearCredentials(nearCredentialsFromSeed(key.seed))), {
      mode: 0o600,
    });
    return { key, keyFile };
  }

  // `passport mint --api http://127.0.0.1:PORT` (the internal URL) names that URL; the refusal's hint
  // told the operator to run that very command again. The server's answer names its own URL
  // (details.thisApiUrl): the hint must name that one.
  it('the FOREIGN hint names the server URL the passport must name, not the --api just used', async () => {
    const { key, keyFile } = await keyFileFor('internal');
    const minted = await mintPassport(app, {
      owner: key,
      metadata: { subjectuniqueidentifier_url: app.baseUrl },
    });
    const refused = await cli([
      'login',
      '--api',
      app.baseUrl,
      '--key',
      keyFile,
      '--passport',
      minted.tokenId,
    ]);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('LOGIN_MODE_POLICY_REJECTED_FOREIGN_BY_PARTNER');
    expect(refused.err).not.toContain(`mint --api ${app.baseUrl}`);
    expect(refused.err).toContain(PUBLIC);
  });

  // An http -> https 301 (the usual proxy setup): fetch turns POST /api/login into GET, and the tool
  // said "405 METHOD_NOT_ALLOWED"; for nonce it said MISSING_TOKEN (the bearer is dropped across
  // origins). The redirect itself must be named, with the URL to use.
  it("a 301 redirect is reported as a redirect, not as the target's 405", async () => {
    const { key, keyFile } = await keyFileFor('redirected');
    const minted = await mintPassport(app, { owner: key, metadata: { subjectuniqueidentifier_url: PUBLIC } });
    const { url, server } = await redirector(301, app.baseUrl);
    try {
      const run = await cli(['login', '--api', url, '--key', keyFile, '--passport', minted.tokenId]);
      expect(run.code).toBe(2);
      expect(run.err).not.toContain('METHOD_NOT_ALLOWED');
      expect(run.err).toMatch(/redirect/i);
    } finally {
      server.close();
    }
  });

  // A 307/308 re-sends the signed login (good at every deployment for 300 s) to whatever origin the
  // Location names, https -> http included, and the tool printed the JWT without a word.
  it('a 308 to another origin does not carry the signed login there', async () => {
    const { key, keyFile } = await keyFileFor('forwarded');
    const minted = await mintPassport(app, { owner: key, metadata: { subjectuniqueidentifier_url: PUBLIC } });
    const { url, server } = await redirector(308, app.baseUrl);
    try {
      const run = await cli(['login', '--api', url, '--key', keyFile, '--passport', minted.tokenId]);
      expect(run.code).toBe(2);
      expect(run.out).toBe('');
      expect(run.err).toMatch(/redirect/i);
    } finally {
      server.close();
    }
  });
});
