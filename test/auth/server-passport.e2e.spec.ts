/**
 * The server's own passport changed on chain while the server runs, over real HTTP against the real app.
 * Found by a probe (CHAIN=near): with the server passport revoked (or transferred), logins still got
 * JWTs naming it, because the server read its passport only at start. Now login answers 503 with the
 * reason while it lasts (the challenge is not used up), health says why, and both recover when the
 * passport is usable again.
 */
import { updateLedgerFile } from '@passport/adapters/ledger';
import { ledgerFileOf, login, mintPassport, newKey, serverIdentityOf } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const CACHE_MS = 5200; // the chain cache keeps a found passport for at most 5 s

describe('the server passport revoked or transferred on chain', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
  });
  afterAll(() => app.close());

  const edit = (change: (p: any) => any) =>
    updateLedgerFile(ledgerFileOf(app), (doc) => ({
      ...doc,
      passports: doc.passports.map((p) => (p.token_id === serverIdentityOf(app).tokenId ? change(p) : p)),
    }));
  const health = async () => (await (await fetch(`${app.baseUrl}/health`)).json()) as any;

  it.each([
    ['revoked', (p: any) => ({ ...p, revoked: true }), 'server_passport_revoked'],
    ['transferred', (p: any) => ({ ...p, owner_id: newKey().accountId }), 'server_passport_transferred'],
  ])(
    '%s: logins 503 with the reason, health degraded; usable again: both recover',
    async (_label, change, reason) => {
      const key = newKey();
      const { tokenId } = await mintPassport(app, { owner: key });
      let before: any;
      await edit((p) => ((before = p), change(p)));
      await new Promise((resolve) => setTimeout(resolve, CACHE_MS));
      const refused = await login(app.baseUrl, { identifier: tokenId, key });
      expect([refused.status, refused.body.error?.code, refused.body.error?.details?.reason]).toEqual([
        503,
        'SERVICE_UNAVAILABLE',
        reason,
      ]);
      expect(JSON.stringify(refused.body)).not.toContain('jwt_token');
      const degraded = await health();
      expect([degraded.status, degraded.checks.chain.reason]).toEqual(['degraded', reason]);

      await edit(() => before);
      await new Promise((resolve) => setTimeout(resolve, CACHE_MS));
      // The refused challenge was not used up: the same one logs in now.
      const again = await login(app.baseUrl, { identifier: tokenId, key, challenge: refused.challenge });
      expect(again.status).toBe(200);
      expect((await health()).status).toBe('healthy');
    },
    20_000,
  );
});
