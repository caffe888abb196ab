/**
 * A restart on the same DATA_DIR with another PORT (so another PUBLIC_BASE_URL). Found by a probe: the
 * ledger's server passport kept the first start's URL, `passport mint` without --api copied it, and every
 * such passport's login was refused as foreign (401 LOGIN_MODE_POLICY_REJECTED_FOREIGN_BY_PARTNER) while
 * the start logged nothing and health said healthy. Now health is degraded and says why while the URLs
 * differ (the start logs a warning: server-url.check.spec.ts); passports of the new URL log in.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { login, mintPassport, newKey, serverIdentityOf } from '../support/passports.js';
import { freePort, startTestApp, type TestApp } from '../support/test-app.js';

describe('PUBLIC_BASE_URL changed after the first start', () => {
  let dataDir: string;
  let app: TestApp | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'passport-url-change-'));
  });
  afterAll(async () => {
    await app?.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  const health = async (a: TestApp) => (await (await fetch(`${a.baseUrl}/health`)).json()) as any;

  it('health is degraded naming both URLs while they differ; healthy again with the old PUBLIC_BASE_URL', async () => {
    const first = await startTestApp({ DATA_DIR: dataDir, STORE: 'memory' });
    const oldUrl = first.baseUrl;
    expect((await health(first)).status).toBe('healthy');
    await first.close();

    app = await startTestApp({ DATA_DIR: dataDir, STORE: 'memory' });
    expect(serverIdentityOf(app).passport.metadata.subjectuniqueidentifier_url).toBe(oldUrl);
    const degraded = await health(app);
    expect([degraded.status, degraded.checks.chain]).toEqual([
      'degraded',
      expect.objectContaining({
        status: 'fail',
        reason: 'server_passport_url_mismatch',
        publicBaseUrl: app.baseUrl,
        serverPassportUrl: oldUrl,
      }),
    ]);
    // What the warning is about: a passport naming the old URL (as `passport mint` copies it) is foreign.
    const copied = newKey();
    const { tokenId: copiedId } = await mintPassport(app, {
      owner: copied,
      metadata: { subjectuniqueidentifier_url: oldUrl },
    });
    const refused = await login(app.baseUrl, { identifier: copiedId, key: copied });
    expect([refused.status, refused.body.error?.code]).toEqual([
      401,
      'LOGIN_MODE_POLICY_REJECTED_FOREIGN_BY_PARTNER',
    ]);
    // Not a reason to refuse other logins: a passport for the new URL logs in.
    const fresh = newKey();
    const { tokenId } = await mintPassport(app, { owner: fresh });
    expect((await login(app.baseUrl, { identifier: tokenId, key: fresh })).status).toBe(200);
    await app.close();

    // The advice the warning gives: PUBLIC_BASE_URL back to the passport's URL, PORT may differ.
    const port = String(await freePort());
    app = await startTestApp({ DATA_DIR: dataDir, STORE: 'memory', PORT: port, PUBLIC_BASE_URL: oldUrl });
    expect((await health(app)).status).toBe('healthy');
  }, 30_000);
});
