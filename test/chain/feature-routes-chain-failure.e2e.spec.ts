/**
 * The feature routes whose chain failure had no test: on CHAIN=near against the fake NEAR JSON-RPC node
 * (the real near-api-js client), a node that answers HTTP 503 to every call makes `GET /api/agents`
 * 500 AGENTS_RETRIEVE_FAILED, `POST /api/isauthorizedsigner` 500 VERIFY_FAILED (reason chain_unavailable),
 * the DID resolution 500 DID_RESOLUTION_FAILED and `GET /api/identity/token/{id}/full` 500
 * IDENTITY_LOOKUP_FAILED: each the route's catalogued code in the error envelope, never the node's text.
 * And `POST /api/signclient`, which must know the token id is not minted before it signs, answers 503
 * SERVICE_UNAVAILABLE (chain_unavailable) and signs nothing.
 */
import { rm } from 'node:fs/promises';
import { randomFaceTokenId, signDelegation, signFamilyMetadata } from '@passport/core';
import { cryptoRandomInt } from '@passport/core/token-id';
import { startFakeNearRpc, type FakeNearRpc } from '../fake-near-rpc/fake-near-rpc.server.js';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import { contractClient, type ContractResponse } from '../support/contract-fetch.js';
import { bearer, fetchChallenge, signLogin, type TestKey } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { newNearKey, seedNearFamily, type NearFamily } from './support/near-family.js';

const CONTRACT = 'passport.test.near';
const UPSTREAM_SECRET = 'secret-internal-detail';

const key = (): TestKey => newNearKey();

describe('feature routes when the chain cannot be read', () => {
  let rpc: FakeNearRpc;
  let app: TestApp;
  let family: NearFamily;
  let request: ReturnType<typeof contractClient>;

  function mint(owner: TestKey): string {
    const tokenId = randomFaceTokenId(cryptoRandomInt);
    const metadata: Record<string, string> = {
      serviceprovider_id: family.serviceProviderId,
      subjectuniqueidentifier_url: app.baseUrl,
      not_before: '',
      not_after: '',
    };
    metadata.serviceprovider_signature = signFamilyMetadata(metadata, tokenId, family.root.signer);
    rpc.tokens.push({ token_id: tokenId, owner_id: owner.accountId, metadata });
    return tokenId;
  }

  async function login(owner: TestKey, tokenId: string): Promise<string> {
    const challenge = await fetchChallenge(app.baseUrl);
    const res = await fetch(`${app.baseUrl}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        passportid: tokenId,
        timestamp_iso: challenge.timestamp_iso,
        passportid_base64url_signature: signLogin(owner, tokenId, challenge.timestamp_iso),
      }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { jwt_token: string }).jwt_token;
  }

  /** Every node call fails from here on with an HTTP 503 whose body names an internal detail. */
  const failTheNode = () => {
    rpc.clearFaults();
    rpc.enqueue(
      ...Array.from({ length: 400 }, () => ({ kind: 'http' as const, status: 503, body: UPSTREAM_SECRET })),
    );
  };

  beforeAll(async () => {
    rpc = await startFakeNearRpc(CONTRACT);
    rpc.blockTimeMs = Date.now();
    family = await seedNearFamily(rpc, CONTRACT);
    app = await startTestApp({
      DATA_DIR: family.dataDir,
      CHAIN: 'near',
      NEAR_RPC_URL: rpc.url,
      NEAR_CONTRACT_ID: CONTRACT,
      STORE: 'memory',
    });
    request = contractClient(app.baseUrl);
  });

  afterAll(async () => {
    await app?.close();
    await rpc?.close();
    if (family) await rm(family.dataDir, { recursive: true, force: true });
  });

  afterEach(() => rpc.clearFaults());

  const expectChainFailure = (res: ContractResponse, code: string) => {
    expect(res.status).toBe(500);
    expectErrorEnvelope(res, code);
    expect(res.text).not.toContain(UPSTREAM_SECRET);
  };

  it('GET /api/agents → 500 AGENTS_RETRIEVE_FAILED', async () => {
    mint(key());
    failTheNode();
    expectChainFailure(await request('/api/agents?limit=5'), 'AGENTS_RETRIEVE_FAILED');
  });

  it('POST /api/isauthorizedsigner → 500 VERIFY_FAILED (chain_unavailable)', async () => {
    const caller = key();
    const jwt = await login(caller, mint(caller));
    // The delegation's passport has not been read yet: its read goes to the failing node (the caller's
    // own passport is in the chain cache, so the bearer tier lets the request through).
    const owner = key();
    const delegated = mint(owner);
    failTheNode();
    const res = await request('/api/isauthorizedsigner', {
      method: 'POST',
      headers: { ...bearer(jwt), 'content-type': 'application/json' },
      body: JSON.stringify(
        signDelegation({
          tokenId: delegated,
          delegateId: 'research-bot-1',
          unixTimestamp: Math.floor(Date.now() / 1000),
          delegatePublicKey: key().signer.publicKey,
          ownerSigner: owner.signer,
        }),
      ),
    });
    expectChainFailure(res, 'VERIFY_FAILED');
    expect(res.body.error.details).toMatchObject({ reason: 'chain_unavailable' });
  });

  it('the DID resolution → 500 DID_RESOLUTION_FAILED on every document path', async () => {
    const tokenId = mint(key());
    failTheNode();
    for (const route of [
      `/.well-known/did/resolve?did=did:passport:${tokenId}`,
      `/.well-known/did/passport/${tokenId}`,
      `/passport/${tokenId}/did.json`,
    ]) {
      const res = await request(route);
      expectChainFailure(res, 'DID_RESOLUTION_FAILED');
      expect(res.body.error.details).toMatchObject({ did: `did:passport:${tokenId}` });
    }
  });

  it('GET /api/identity/token/{id}/full → 500 IDENTITY_LOOKUP_FAILED naming the token id', async () => {
    const caller = key();
    const jwt = await login(caller, mint(caller));
    const peer = mint(key());
    failTheNode();
    const res = await request(`/api/identity/token/${peer}/full`, { headers: bearer(jwt) });
    expectChainFailure(res, 'IDENTITY_LOOKUP_FAILED');
    expect(res.body.error.details).toMatchObject({ tokenId: peer });
  });

  it('POST /api/signclient → 503 SERVICE_UNAVAILABLE (chain_unavailable), no signature', async () => {
    const notAfter = new Date(Date.now() + 365 * 86_400_000 - 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    failTheNode();
    const res = await request('/api/signclient', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        tobesignedValues: {
          not_after: notAfter,
          max_requests: '48',
          maxrq_window: '60',
          subjectuniqueidentifier_url: app.baseUrl,
        },
        token_id: randomFaceTokenId(cryptoRandomInt),
        mintingfee: String(0.28 * 0.48 * 60),
      }),
    });
    expect(res.status).toBe(503);
    expectErrorEnvelope(res, 'SERVICE_UNAVAILABLE');
    expect(res.body.error.details).toMatchObject({ reason: 'chain_unavailable' });
    expect(res.text).not.toContain(UPSTREAM_SECRET);
    expect(res.text).not.toContain('serviceprovider_signature');
  });
});
