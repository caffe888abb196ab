/**
 * CHAIN=near against a contract that names its views as the production one does (rodit_token,
 * rodit_tokens_for_owner, rodit_tokens): with NEAR_VIEW_* set, the fake JSON-RPC node serves the
 * server passport and a holder's passport, both minted the issuer's way (no token_id in the metadata,
 * the family signature over the record's id), and login, identity, verify and the DID document work.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  buildHolaLine,
  formatNearCredentials,
  nearCredentialsFromSeed,
  randomFaceTokenId,
  signFamilyMetadata,
} from '@passport/core';
import { cryptoRandomInt } from '@passport/core/token-id';
import { familyRootTokenId } from '@passport/core/family';
import { loadConfig, ConfigError } from '../../apps/api/src/platform/config/app-config.js';
import { startFakeNearRpc, type FakeNearRpc } from '../fake-near-rpc/fake-near-rpc.server.js';
import { bearer, login, newKey } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const CONTRACT = 'passport.test.near';
const PRODUCTION_VIEWS = {
  NEAR_VIEW_TOKEN: 'rodit_token',
  NEAR_VIEW_TOKENS_FOR_OWNER: 'rodit_tokens_for_owner',
  NEAR_VIEW_TOKENS: 'rodit_tokens',
};

describe('NEAR view-method names from the environment', () => {
  it('are read, default to passport_*, and a bad one stops the start naming the variable', () => {
    const base = { CHAIN: 'near', NEAR_RPC_URL: 'http://127.0.0.1:1', NEAR_CONTRACT_ID: CONTRACT };
    expect(loadConfig(base).nearViewMethods).toEqual({
      token: 'passport_token',
      tokensForOwner: 'passport_tokens_for_owner',
      tokens: 'passport_tokens',
    });
    expect(loadConfig({ ...base, ...PRODUCTION_VIEWS }).nearViewMethods).toEqual({
      token: 'rodit_token',
      tokensForOwner: 'rodit_tokens_for_owner',
      tokens: 'rodit_tokens',
    });
    for (const name of Object.keys(PRODUCTION_VIEWS)) {
      expect(() => loadConfig({ ...base, [name]: 'rodit token' })).toThrow(ConfigError);
      expect(() => loadConfig({ ...base, [name]: 'rodit token' })).toThrow(
        new RegExp(`^Invalid configuration: ${name} `),
      );
    }
  });
});

describe('CHAIN=near on a contract with the production view names', () => {
  let rpc: FakeNearRpc;
  let app: TestApp;
  let dataDir: string;
  const root = newKey();
  const serverKey = newKey();
  const holder = newKey();
  const serviceProviderId = familyRootTokenId({ chain: 'near', contract: CONTRACT }, 'root');
  const holderToken = randomFaceTokenId(cryptoRandomInt);

  /** A passport the way the issuer mints it: no token_id in the metadata. */
  function issue(tokenId: string, ownerId: string, extra: Record<string, string> = {}) {
    const metadata: Record<string, string> = {
      serviceprovider_id: serviceProviderId,
      not_before: '',
      not_after: '',
      max_requests: '100',
      maxrq_window: '60',
      ...extra,
    };
    metadata.serviceprovider_signature = signFamilyMetadata(metadata, tokenId, root.signer);
    rpc.tokens.push({ token_id: tokenId, owner_id: ownerId, metadata });
  }

  beforeAll(async () => {
    rpc = await startFakeNearRpc(CONTRACT, {
      token: 'rodit_token',
      tokensForOwner: 'rodit_tokens_for_owner',
      tokens: 'rodit_tokens',
    });
    rpc.blockTimeMs = Date.now();
    dataDir = await mkdtemp(path.join(tmpdir(), 'passport-near-views-'));
    await mkdir(path.join(dataDir, 'keys'), { recursive: true });
    await writeFile(
      path.join(dataDir, 'keys', 'server.json'),
      JSON.stringify(formatNearCredentials(nearCredentialsFromSeed(serverKey.seed))),
      { mode: 0o600 },
    );
    rpc.tokens.push({ token_id: serviceProviderId, owner_id: root.accountId, metadata: {} });
    issue(randomFaceTokenId(cryptoRandomInt), serverKey.accountId);
    app = await startTestApp({
      DATA_DIR: dataDir,
      CHAIN: 'near',
      NEAR_RPC_URL: rpc.url,
      NEAR_CONTRACT_ID: CONTRACT,
      STORE: 'memory',
      ...PRODUCTION_VIEWS,
    });
    issue(holderToken, holder.accountId, { userselected_dn: 'NNSWF="Smith, John",Creature=robot' });
  });
  afterAll(async () => {
    await app?.close();
    await rpc?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('logs the issuer-minted passport in, and reads it, its DID and a HOLA line of it', async () => {
    const result = await login(app.baseUrl, { identifier: holderToken, key: holder });
    expect([result.status, result.body.error?.code]).toEqual([200, undefined]);
    const byAccount = await login(app.baseUrl, {
      identifier: holder.accountId,
      key: holder,
      kind: 'accountid',
    });
    expect(byAccount.status).toBe(200);

    const me = await fetch(`${app.baseUrl}/api/me/identity`, { headers: bearer(result.body.jwt_token) });
    const identity = (await me.json()) as { tokenId: string; dn: { displayName: string } };
    expect([me.status, identity.tokenId, identity.dn.displayName]).toEqual([200, holderToken, 'Smith, John']);

    const did = await fetch(`${app.baseUrl}/.well-known/did/resolve?did=did:passport:${holderToken}`);
    const document = (await did.json()) as { service: { id: string; serviceEndpoint: unknown }[] };
    expect(document.service.find((s) => s.id.endsWith('#metadata'))?.serviceEndpoint).toMatchObject({
      tokenId: holderToken,
      ownerAccountId: holder.accountId,
    });

    const line = buildHolaLine({
      senderTokenId: holderToken,
      timestamp: new Date().toISOString(),
      nonceHex: randomBytes(16).toString('hex').toUpperCase(),
      serviceHost: new URL(app.baseUrl).host,
      signer: holder.signer,
    });
    const verified = await fetch(`${app.baseUrl}/api/identity/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hola: line }),
    });
    expect(((await verified.json()) as { verified: boolean }).verified).toBe(true);
    // Every contract view went to the configured names.
    expect(rpc.count((r) => r.methodName !== undefined && !r.methodName.startsWith('rodit_'))).toBe(0);
    expect(rpc.count((r) => r.methodName === 'rodit_token')).toBeGreaterThan(0);
  });
});
