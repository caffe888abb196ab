/**
 * POST /api/signclient over real HTTP: malformed requests and fee mismatches first, then a personal,
 * an enterprise and a collectible signature; the signed metadata, minted as returned, logs in (the
 * family signature is the real one). Without a family key the answer is 500 SIGNCLIENT_FAILED.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { createNobleVerifier, randomFaceTokenId, verifyFamilySignature } from '@passport/core';
import { cryptoRandomInt } from '@passport/core/token-id';
import { updateLedgerFile } from '../../apps/api/src/chain/ledger/ledger-file.js';
import { contractClient } from '../support/contract-fetch.js';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import { familyRootSigner, ledgerFileOf, login, newKey, serverIdentityOf } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const DAY = 86_400_000;
const inDays = (days: number) =>
  new Date(Date.now() + days * DAY - 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

function client(app: TestApp) {
  const request = contractClient(app.baseUrl);
  return (body: unknown) =>
    request('/api/signclient', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
}

describe('POST /api/signclient', () => {
  let app: TestApp;
  let sign: ReturnType<typeof client>;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
    sign = client(app);
  });
  afterAll(() => app.close());

  const personal = { not_after: inDays(365), max_requests: '48', maxrq_window: '60' };
  const personalFee = 0.28 * 0.48 * 60;

  it('malformed requests → 400 SIGNCLIENT_INVALID_REQUEST naming the field', async () => {
    for (const [body, field] of [
      [[], 'body'],
      [{ mintingfee: 1 }, 'tobesignedValues'],
      [{ tobesignedValues: { max_requests: 48 }, mintingfee: 1 }, 'tobesignedValues.max_requests'],
      [{ tobesignedValues: personal, tier: 'gold', mintingfee: 1 }, 'tier'],
      [{ tobesignedValues: personal }, 'mintingfee'],
      [
        { tobesignedValues: { serviceprovider_id: 'bc=x;sc=y;id=z' }, mintingfee: 1 },
        'tobesignedValues.serviceprovider_id',
      ],
    ] as const) {
      const res = await sign(body);
      expect([field, expectErrorEnvelope(res, 'SIGNCLIENT_INVALID_REQUEST').error.details]).toEqual([
        field,
        expect.objectContaining({ field }),
      ]);
    }
  });

  it('a fee off by more than 1e-6 → 400 SIGNCLIENT_FEE_MISMATCH with string details', async () => {
    const res = await sign({ tobesignedValues: personal, mintingfee: personalFee + 0.001 });
    expect(expectErrorEnvelope(res, 'SIGNCLIENT_FEE_MISMATCH').error.details).toEqual({
      message: expect.any(String),
      clientFee: String(personalFee + 0.001),
      serverFee: expect.stringMatching(/^8\.06/),
    });
    const collectible = await sign({ tobesignedValues: { not_after: '0' }, mintingfee: 495 });
    expect(expectErrorEnvelope(collectible, 'SIGNCLIENT_FEE_MISMATCH').error.details).toMatchObject({
      clientFee: '495',
      serverFee: '496',
    });
  });

  it('201: the family signature over the metadata; minted as returned, the passport logs in', async () => {
    const key = newKey();
    const tokenId = randomFaceTokenId(cryptoRandomInt);
    const res = await sign({
      tobesignedValues: { ...personal, subjectuniqueidentifier_url: app.baseUrl },
      token_id: tokenId,
      mintingfee: String(personalFee),
    });
    expect(res.status).toBe(201);
    const server = serverIdentityOf(app);
    expect(res.body).toEqual({
      serviceprovider_signature: expect.stringMatching(/^[A-Za-z0-9_-]{86}$/),
      metadata: {
        ...personal,
        subjectuniqueidentifier_url: app.baseUrl,
        token_id: tokenId,
        serviceprovider_id: server.serviceProviderId,
      },
      fee_data: {
        tier: 'personal',
        fee: expect.closeTo(personalFee, 9),
        clientFee: personalFee,
        daysUntilExpiry: 365,
      },
      requestId: res.headers.get('x-request-id'),
    });
    const minted = { ...res.body.metadata, serviceprovider_signature: res.body.serviceprovider_signature };
    const root = await familyRootSigner(app);
    expect(verifyFamilySignature(minted, [root.publicKey], createNobleVerifier())).toBe(true);

    await updateLedgerFile(ledgerFileOf(app), (doc) => ({
      ...doc,
      passports: [...doc.passports, { token_id: tokenId, owner_id: key.accountId, metadata: minted }],
    }));
    expect((await login(app.baseUrl, { identifier: tokenId, key })).status).toBe(200);
  });

  it('enterprise and collectible tiers', async () => {
    const enterprise = await sign({
      tobesignedValues: { not_after: inDays(30), max_requests: '4999' },
      mintingfee: (1806 * 30) / 365,
    });
    expect(enterprise.status).toBe(201);
    expect(enterprise.body.fee_data).toMatchObject({ tier: 'enterprise', daysUntilExpiry: 30 });
    const collectible = await sign({ tobesignedValues: {}, tier: 'collectible', mintingfee: 496 });
    expect(collectible.body.fee_data).toEqual({
      tier: 'collectible',
      fee: 496,
      clientFee: 496,
      daysUntilExpiry: null,
    });
  });
});

describe('POST /api/signclient without a family key', () => {
  it('→ 500 SIGNCLIENT_FAILED (bad requests stay 400s)', async () => {
    // The development family writes the key on first start; removing it leaves minting unconfigured.
    const app = await startTestApp({ STORE: 'memory' });
    await rm(path.join(app.dataDir, 'keys', 'family-root.json'));
    try {
      const sign = client(app);
      const res = await sign({ tobesignedValues: { not_after: '0' }, mintingfee: 496 });
      const body = expectErrorEnvelope(res, 'SIGNCLIENT_FAILED');
      expect(JSON.stringify(body)).not.toContain('family-root');
      expectErrorEnvelope(
        await sign({ tobesignedValues: { not_after: '0' }, mintingfee: 1 }),
        'SIGNCLIENT_FEE_MISMATCH',
      );
    } finally {
      await app.close();
    }
  });
});
