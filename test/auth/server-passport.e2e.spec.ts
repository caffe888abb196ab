/**
 * The server's own passport changed on chain while the server runs, over real HTTP against the real app.
 * Found by a probe (CHAIN=near): with the server passport revoked (or transferred), logins still got
 * JWTs naming it, because the server read its passport only at start. Now login answers 503 with the
 * reason while it lasts (the challenge is not used up), health says why, and both recover when the
 * passport is usable again.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { updateLedgerFile } from '@passport/adapters/ledger';
import { ledgerFileOf, login, mintPassport, newKey, serverIdentityOf } from '../support/passports.js';
import { freePort, startTestApp, type TestApp } from '../support/test-app.js';

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
        'AUTH_SERVICE_UNAVAILABLE',
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

  // Found by a probe: the ledger's contractId edited while the server ran made every login 401
  // SMART_CONTRACT_NOT_TRUSTED (the client blamed) while health said healthy.
  it('the chain contract edited out of the trusted ones: logins 503 with the reason, health degraded; both recover', async () => {
    const key = newKey();
    const { tokenId } = await mintPassport(app, { owner: key });
    let contractId = '';
    await updateLedgerFile(ledgerFileOf(app), (doc) => {
      contractId = doc.contractId;
      return { ...doc, contractId: 'other.local' };
    });
    await new Promise((resolve) => setTimeout(resolve, CACHE_MS));
    const refused = await login(app.baseUrl, { identifier: tokenId, key });
    expect([refused.status, refused.body.error?.code, refused.body.error?.details?.reason]).toEqual([
      503,
      'AUTH_SERVICE_UNAVAILABLE',
      'server_passport_contract_untrusted',
    ]);
    const degraded = await health();
    expect([degraded.status, degraded.checks.chain.reason]).toEqual([
      'degraded',
      'server_passport_contract_untrusted',
    ]);
    await updateLedgerFile(ledgerFileOf(app), (doc) => ({ ...doc, contractId }));
    await new Promise((resolve) => setTimeout(resolve, CACHE_MS));
    const again = await login(app.baseUrl, { identifier: tokenId, key, challenge: refused.challenge });
    expect(again.status).toBe(200);
    expect((await health()).status).toBe('healthy');
  }, 20_000);
});

// Found by a probe: with the server passport revoked and another minted for the server account, a restart
// took the revoked one again (the first the account owns), so every login stayed refused.
describe('a restart after the server passport was replaced', () => {
  let dataDir: string;
  let app: TestApp | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'passport-server-'));
  });
  afterAll(async () => {
    await app?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('takes the unrevoked passport of the server account, and logins work', async () => {
    const PORT = String(await freePort());
    app = await startTestApp({ DATA_DIR: dataDir, STORE: 'memory', PORT });
    const old = serverIdentityOf(app);
    const replacement = await mintPassport(app, { owner: old.ownerId });
    await updateLedgerFile(ledgerFileOf(app), (doc) => ({
      ...doc,
      passports: doc.passports.map((p) => (p.token_id === old.tokenId ? { ...p, revoked: true } : p)),
    }));
    await app.close();
    app = await startTestApp({ DATA_DIR: dataDir, STORE: 'memory', PORT });
    expect(serverIdentityOf(app).tokenId).toBe(replacement.tokenId);
    const key = newKey();
    const { tokenId } = await mintPassport(app, { owner: key });
    expect((await login(app.baseUrl, { identifier: tokenId, key })).status).toBe(200);
  }, 20_000);
});
