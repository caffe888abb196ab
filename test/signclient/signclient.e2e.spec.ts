/**
 * POST /api/signclient over real HTTP: malformed requests and fee mismatches first, then a personal,
 * an enterprise and a collectible signature; the signed metadata, minted as returned under the token
 * id it was signed for, logs in (the family signature is the issuer's). Anonymous callers cannot buy
 * privileged routes or unlimited quotas; a JWT privileged for /api/signclient can. Without a family
 * key the answer is 500 SIGNCLIENT_FAILED.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { createNobleVerifier, randomFaceTokenId, verifyFamilySignature } from '@passport/core';
import { cryptoRandomInt } from '@passport/core/token-id';
import { updateLedgerFile } from '@passport/adapters/ledger';
import { contractClient } from '../support/contract-fetch.js';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import {
  bearer,
  familyRootSigner,
  ledgerFileOf,
  login,
  mintAndLogin,
  mintPassport,
  newKey,
  serverIdentityOf,
} from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const DAY = 86_400_000;
const inDays = (days: number) =>
  new Date(Date.now() + days * DAY - 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

function client(app: TestApp) {
  const request = contractClient(app.baseUrl);
  return (body: unknown, headers: Record<string, string> = {}) =>
    request('/api/signclient', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
}

const TOKEN = 'bjbvcjzqbdsj';

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
      [{ tobesignedValues: personal, mintingfee: personalFee }, 'token_id'],
      [{ tobesignedValues: personal, token_id: TOKEN, tier: 'gold', mintingfee: 1 }, 'tier'],
      [{ tobesignedValues: personal, token_id: TOKEN }, 'mintingfee'],
      [
        { tobesignedValues: { serviceprovider_id: 'bc=x;sc=y;id=z' }, token_id: TOKEN, mintingfee: 1 },
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

  // Found by a probe: a window that can never be live was signed.
  it('an unreadable or inverted not_before / not_after window → 400 naming the bound', async () => {
    for (const [values, field, reason] of [
      [
        { ...personal, not_before: inDays(400) },
        'not_before',
        'is after not_after: the passport would never be live',
      ],
      [{ ...personal, not_before: 'soon' }, 'not_before', 'unreadable date'],
      [{ not_after: 'never', max_requests: '10', tier: 'collectible' }, 'not_after', 'unreadable date'],
    ] as const) {
      const res = await sign({
        tobesignedValues: values,
        token_id: TOKEN,
        mintingfee: personalFee,
        tier: 'personal',
      });
      expect(expectErrorEnvelope(res, 'SIGNCLIENT_INVALID_REQUEST').error.details).toEqual({ field, reason });
    }
  });

  // Found by a probe: anyone could have new metadata of an existing passport signed (the server's own
  // included), which a contract that lets owners update metadata would accept.
  it('a token id minted already → 409 SIGNCLIENT_TOKEN_EXISTS, no signature', async () => {
    const { tokenId } = await mintPassport(app, {});
    const res = await sign({ tobesignedValues: personal, token_id: tokenId, mintingfee: personalFee });
    expect(res.status).toBe(409);
    expect(Object.keys(res.body).sort()).toEqual(['error', 'requestId', 'timestamp']);
    expect(expectErrorEnvelope(res, 'SIGNCLIENT_TOKEN_EXISTS').error.details).toEqual({ token_id: tokenId });
    const own = await sign({
      tobesignedValues: personal,
      token_id: serverIdentityOf(app).tokenId,
      mintingfee: personalFee,
    });
    expectErrorEnvelope(own, 'SIGNCLIENT_TOKEN_EXISTS');
  });

  it('a fee off by more than 1e-6 → 400 SIGNCLIENT_FEE_MISMATCH with string details', async () => {
    const res = await sign({ tobesignedValues: personal, token_id: TOKEN, mintingfee: personalFee + 0.001 });
    // The fee is all a refused caller learns: no signature, no metadata.
    expect(Object.keys(res.body).sort()).toEqual(['error', 'requestId', 'timestamp']);
    expect(expectErrorEnvelope(res, 'SIGNCLIENT_FEE_MISMATCH').error.details).toEqual({
      message: expect.any(String),
      clientFee: String(personalFee + 0.001),
      serverFee: expect.stringMatching(/^8\.06/),
    });
    const collectible = await sign({
      tobesignedValues: { not_after: '0', max_requests: '10' },
      token_id: TOKEN,
      mintingfee: 495,
    });
    expect(expectErrorEnvelope(collectible, 'SIGNCLIENT_FEE_MISMATCH').error.details).toMatchObject({
      clientFee: '495',
      serverFee: '496',
    });
  });

  it('201: the family signature for the token id; minted as returned, the passport logs in, and nowhere else', async () => {
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
      token_id: tokenId,
      metadata: {
        ...personal,
        subjectuniqueidentifier_url: app.baseUrl,
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
    expect(verifyFamilySignature(minted, tokenId, [root.publicKey], createNobleVerifier())).toBe(true);

    // Replayed onto another token id, the same signed metadata is not of the family.
    const otherId = randomFaceTokenId(cryptoRandomInt);
    await updateLedgerFile(ledgerFileOf(app), (doc) => ({
      ...doc,
      passports: [
        ...doc.passports,
        { token_id: tokenId, owner_id: key.accountId, metadata: minted },
        { token_id: otherId, owner_id: key.accountId, metadata: minted },
      ],
    }));
    // signclient read the token id as not minted, and a chain miss is cached for up to 1 s (§8).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await login(app.baseUrl, { identifier: tokenId, key })).status).toBe(200);
    const replayed = await login(app.baseUrl, { identifier: otherId, key });
    expect([replayed.status, replayed.body.error?.code]).toEqual([401, 'PASSPORT_FAMILY_MISMATCH']);
  });

  it('enterprise and collectible tiers', async () => {
    const enterprise = await sign({
      tobesignedValues: { not_after: inDays(30), max_requests: '4999' },
      token_id: TOKEN,
      mintingfee: (1806 * 30) / 365,
    });
    expect(enterprise.status).toBe(201);
    expect(enterprise.body.fee_data).toMatchObject({ tier: 'enterprise', daysUntilExpiry: 30 });
    const collectible = await sign({
      tobesignedValues: { max_requests: '10' },
      token_id: TOKEN,
      tier: 'collectible',
      mintingfee: 496,
    });
    expect(collectible.body.fee_data).toEqual({
      tier: 'collectible',
      fee: 496,
      clientFee: 496,
      daysUntilExpiry: null,
    });
  });
});

describe('POST /api/signclient never sells privilege', () => {
  let app: TestApp;
  let sign: ReturnType<typeof client>;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
    sign = client(app);
  });
  afterAll(() => app.close());

  const adminRoutes = JSON.stringify({
    entities: { methods: { '/api/sessions': '*', '/api/metrics': '*' } },
  });
  const adminAsk = {
    tobesignedValues: { not_after: '0', max_requests: '10', permissioned_routes: adminRoutes },
    token_id: TOKEN,
    mintingfee: 496,
  };
  const unlimitedAsk = {
    tobesignedValues: { not_after: '0', max_requests: '0' },
    token_id: TOKEN,
    mintingfee: 496,
  };
  const noQuotaAsk = { tobesignedValues: { not_after: '0' }, token_id: TOKEN, mintingfee: 496 };
  // A collectible's flat fee does not price the quota: a huge one would be unlimited in all but name.
  const hugeQuotaAsk = {
    tobesignedValues: { not_after: '0', max_requests: '999999999999999' },
    token_id: TOKEN,
    mintingfee: 496,
  };

  it('anonymous: admin routes, max_requests 0, no quota or one above the enterprise quota → 403 PERMISSION_DENIED, no signature', async () => {
    for (const [ask, field] of [
      [adminAsk, 'tobesignedValues.permissioned_routes'],
      [unlimitedAsk, 'tobesignedValues.max_requests'],
      [noQuotaAsk, 'tobesignedValues.max_requests'],
      [hugeQuotaAsk, 'tobesignedValues.max_requests'],
    ] as const) {
      const res = await sign(ask);
      expect([field, expectErrorEnvelope(res, 'PERMISSION_DENIED').error.details]).toEqual([
        field,
        expect.objectContaining({ field, route: '/api/signclient' }),
      ]);
      expect(JSON.stringify(res.body)).not.toContain('serviceprovider_signature');
    }
  });

  it('a JWT that is not privileged for /api/signclient (even an admin of other routes) is refused too', async () => {
    const admin = await mintAndLogin(app, { metadata: { permissioned_routes: adminRoutes } });
    expectErrorEnvelope(await sign(adminAsk, bearer(admin.jwt)), 'PERMISSION_DENIED');
    expectErrorEnvelope(await sign(unlimitedAsk, bearer(admin.jwt)), 'PERMISSION_DENIED');
  });

  it('a JWT that is sent must be valid', async () => {
    expectErrorEnvelope(await sign(adminAsk, { authorization: 'Bearer not.a.jwt' }), 'INVALIDATED_TOKEN');
  });

  it('a JWT privileged for /api/signclient may sign admin routes and an unlimited quota', async () => {
    const minter = await mintAndLogin(app, {
      metadata: {
        permissioned_routes: JSON.stringify({ entities: { methods: { '/api/signclient': '*' } } }),
      },
    });
    const res = await sign(adminAsk, bearer(minter.jwt));
    expect(res.status).toBe(201);
    expect(res.body.metadata.permissioned_routes).toBe(adminRoutes);
    expect((await sign(unlimitedAsk, bearer(minter.jwt))).status).toBe(201);
  });

  // Found by a probe: the privilege was read from the claim alone, so a holder whose privilege was
  // withdrawn on chain still signed admin routes (and could mint them for good) until its session ended.
  it('a privilege for /api/signclient withdrawn on chain ends for the open session, as on the privileged tier', async () => {
    const minter = await mintAndLogin(app, {
      metadata: {
        permissioned_routes: JSON.stringify({ entities: { methods: { '/api/signclient': '*' } } }),
      },
    });
    expect((await sign(adminAsk, bearer(minter.jwt))).status).toBe(201);
    await updateLedgerFile(ledgerFileOf(app), (doc) => ({
      ...doc,
      passports: doc.passports.map((p) =>
        p.token_id === minter.tokenId ? { ...p, metadata: { ...p.metadata, permissioned_routes: '' } } : p,
      ),
    }));
    // The chain cache keeps a found passport for at most 5 s.
    await new Promise((resolve) => setTimeout(resolve, 5200));
    const refused = await sign(adminAsk, bearer(minter.jwt));
    expectErrorEnvelope(refused, 'PERMISSION_DENIED');
    expect(JSON.stringify(refused.body)).not.toContain('serviceprovider_signature');
  });
});

// Found by a probe: with the family root revoked on chain, signclient still signed (for a fee) metadata
// every server of the family then refuses.
describe('POST /api/signclient with the family root revoked', () => {
  it('→ 503 SERVICE_UNAVAILABLE (family_root_not_usable), no signature; signs again once the root is back', async () => {
    const app = await startTestApp({ STORE: 'memory' });
    try {
      const sign = client(app);
      const ask = () =>
        sign({
          tobesignedValues: { not_after: '0', max_requests: '1' },
          token_id: randomFaceTokenId(cryptoRandomInt),
          mintingfee: 496,
        });
      expect((await ask()).status).toBe(201);
      const root = serverIdentityOf(app).serviceProviderId;
      const setRevoked = (revoked: boolean) =>
        updateLedgerFile(ledgerFileOf(app), (doc) => ({
          ...doc,
          passports: doc.passports.map((p) => (p.token_id === root ? { ...p, revoked } : p)),
        }));
      await setRevoked(true);
      await new Promise((resolve) => setTimeout(resolve, 5200)); // the chain cache keeps a record ≤ 5 s
      const refused = await ask();
      expect(expectErrorEnvelope(refused, 'SERVICE_UNAVAILABLE').error.details).toMatchObject({
        reason: 'family_root_not_usable',
      });
      expect(JSON.stringify(refused.body)).not.toContain('serviceprovider_signature');
      await setRevoked(false);
      await new Promise((resolve) => setTimeout(resolve, 5200));
      expect((await ask()).status).toBe(201);
    } finally {
      await app.close();
    }
  });
});

describe('POST /api/signclient without a family key', () => {
  it('→ 500 SIGNCLIENT_FAILED (bad requests stay 400s)', async () => {
    // The development family writes the key on first start; removing it leaves minting unconfigured.
    const app = await startTestApp({ STORE: 'memory' });
    await rm(path.join(app.dataDir, 'keys', 'family-root.json'));
    try {
      const sign = client(app);
      const res = await sign({
        tobesignedValues: { not_after: '0', max_requests: '1' },
        token_id: TOKEN,
        mintingfee: 496,
      });
      const body = expectErrorEnvelope(res, 'SIGNCLIENT_FAILED');
      expect(JSON.stringify(body)).not.toContain('family-root');
      expectErrorEnvelope(
        await sign({
          tobesignedValues: { not_after: '0', max_requests: '1' },
          token_id: TOKEN,
          mintingfee: 1,
        }),
        'SIGNCLIENT_FEE_MISMATCH',
      );
    } finally {
      await app.close();
    }
  });
});
