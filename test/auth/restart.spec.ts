/**
 * Sessions survive a restart on the same DATA_DIR (SQLite store): a token keeps working after the
 * app restarts, and a closed session stays closed. The replay record of a used login challenge also
 * survives, so a restart does not reopen the window.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bearer, fetchChallenge, login, mintPassport, newKey } from '../support/passports.js';
import { freePort, startTestApp } from '../support/test-app.js';

describe('restart on the same DATA_DIR', () => {
  let dataDir: string;
  let port: string;
  const start = () => startTestApp({ DATA_DIR: dataDir, PORT: port, STORE: 'sqlite' });

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'passport-restart-'));
    port = String(await freePort());
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('a token still works after a restart; after logout and a restart it is still refused; a used challenge stays used', async () => {
    let app = await start();
    const key = newKey();
    const { tokenId } = await mintPassport(app, { owner: key });
    const challenge = await fetchChallenge(app.baseUrl);
    const first = await login(app.baseUrl, { identifier: tokenId, key, challenge });
    expect(first.status).toBe(200);
    const jwt = first.body.jwt_token as string;
    await app.close();

    app = await start();
    expect((await fetch(`${app.baseUrl}/api/me/identity`, { headers: bearer(jwt) })).status).toBe(200);
    const replayed = await login(app.baseUrl, { identifier: tokenId, key, challenge });
    expect(replayed.status).toBe(401);
    expect(replayed.body.error.code).toBe('LOGIN_CHALLENGE_TIMESTAMP_INVALID');
    expect((await fetch(`${app.baseUrl}/api/logout`, { method: 'POST', headers: bearer(jwt) })).status).toBe(
      200,
    );
    await app.close();

    app = await start();
    try {
      const refused = await fetch(`${app.baseUrl}/api/me/identity`, { headers: bearer(jwt) });
      expect(refused.status).toBe(401);
      expect((await refused.json()).error.details.cause).toBe('session_closed');
    } finally {
      await app.close();
    }
  });
});
