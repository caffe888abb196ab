/**
 * A NEAR node that answers with data the service must not take as read whole and valid (a probe):
 * owner pages longer than asked or holding another account's passports, records whose token id is not
 * a TokenId or whose owner is not a NEAR account id, a final block hours old, a chain time that goes
 * back. The reader, the cache, login and health each refuse or report them.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { encodeBase58, randomFaceTokenId, signFamilyMetadata } from '@passport/core';
import { chainFailureReasonOf } from './support/chain-failure-reason.js';
import { cryptoRandomInt } from '@passport/core/token-id';
import { NearChainReader } from '@passport/adapters/near';
import { CachingChainReader } from '@passport/adapters/caching';
import { startFakeNearRpc, type FakeNearRpc } from '../fake-near-rpc/fake-near-rpc.server.js';
import { fetchChallenge, signLogin, type TestKey } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { newNearKey, seedNearFamily, type NearFamily } from './support/near-family.js';

const CONTRACT = 'passport.test.near';

const key = (): TestKey => newNearKey();

const bytesOf = (value: unknown): number[] => [...Buffer.from(JSON.stringify(value), 'utf8')];

describe('NearChainReader against a node answering data that is not whole and valid', () => {
  let rpc: FakeNearRpc;
  let reader: NearChainReader;
  beforeEach(async () => {
    rpc = await startFakeNearRpc(CONTRACT);
    reader = new NearChainReader({ rpcUrl: rpc.url, contractId: CONTRACT, attempts: 1 });
  });
  afterEach(() => rpc.close());

  const reasonOf = chainFailureReasonOf;
  const record = (tokenId: string, ownerId: string) => ({
    token_id: tokenId,
    owner_id: ownerId,
    metadata: {},
  });

  it('refuses an owner page with more records than the limit asked (16 000 for a limit of 1 were taken and cached)', async () => {
    rpc.enqueue({
      kind: 'raw-result',
      bytes: bytesOf([record('aaaaaaaaaaaa', 'alice.near'), record('bbbbbbbbbbbb', 'alice.near')]),
    });
    await expect(
      reasonOf(reader.listPassportsByOwner('alice.near', { fromIndex: 0, limit: 1 })),
    ).resolves.toBe('malformed_result');
    rpc.enqueue({
      kind: 'raw-result',
      bytes: bytesOf(Array.from({ length: 3 }, () => record('aaaaaaaaaaaa', 'x.near'))),
    });
    await expect(reasonOf(reader.listPassports({ fromIndex: 0, limit: 2 }))).resolves.toBe(
      'malformed_result',
    );
  });

  it("refuses an owner page holding another account's passport", async () => {
    rpc.enqueue({ kind: 'raw-result', bytes: bytesOf([record('aaaaaaaaaaaa', 'mallory.near')]) });
    await expect(
      reasonOf(reader.listPassportsByOwner('alice.near', { fromIndex: 0, limit: 5 })),
    ).resolves.toBe('malformed_result');
  });

  it.each([
    ['a\u0000b.near'],
    ['../admin'],
    ['bob near'],
    ['a\u202ebc.near'],
    ['ALICE.NEAR'],
    ['did:web:evil#x'],
  ])('refuses a record whose owner_id %j is not a NEAR account id', async (ownerId) => {
    rpc.enqueue({ kind: 'raw-result', bytes: bytesOf(record('aaaaaaaaaaaa', ownerId)) });
    await expect(reasonOf(reader.getPassport('aaaaaaaaaaaa'))).resolves.toBe('malformed_result');
  });

  it('reads a 400 for its error only: a result under it is no answer', async () => {
    const result = {
      result: [...Buffer.from(JSON.stringify(record('aaaaaaaaaaaa', 'alice.near')))],
      logs: [],
    };
    rpc.enqueue({ kind: 'http', status: 400, body: JSON.stringify({ jsonrpc: '2.0', id: '1', result }) });
    await expect(reasonOf(reader.getPassport('aaaaaaaaaaaa'))).resolves.toBe('malformed_result');
  });

  it('a chain time read later is never earlier than one read before (a node behind by an hour)', async () => {
    const cache = new CachingChainReader(reader, { chainTimeTtlMs: 1 });
    rpc.blockTimeMs = Date.now();
    const first = await cache.chainTimeMs();
    rpc.blockTimeMs = Date.now() - 3_600_000;
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await cache.chainTimeMs()).toBeGreaterThanOrEqual(first);
  });
});

describe('CHAIN=near app against a node answering data that is not whole and valid', () => {
  let rpc: FakeNearRpc;
  let app: TestApp;
  let family: NearFamily;

  function mint(ownerId: string, tokenId = randomFaceTokenId(cryptoRandomInt)): string {
    const metadata: Record<string, string> = {
      serviceprovider_id: family.serviceProviderId,
      subjectuniqueidentifier_url: app.baseUrl,
      not_before: '',
      not_after: '',
    };
    metadata.serviceprovider_signature = signFamilyMetadata(metadata, tokenId, family.root.signer);
    rpc.tokens.push({ token_id: tokenId, owner_id: ownerId, metadata });
    return tokenId;
  }

  function namedAccount(owner: TestKey): string {
    const account = `u${randomBytes(4).toString('hex')}.test.near`;
    rpc.accounts.set(account, [
      { public_key: `ed25519:${encodeBase58(owner.signer.publicKey)}`, permission: 'FullAccess' },
    ]);
    return account;
  }

  async function loginByAccount(owner: TestKey, account: string) {
    const challenge = await fetchChallenge(app.baseUrl);
    const res = await fetch(`${app.baseUrl}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        accountid: account,
        timestamp_iso: challenge.timestamp_iso,
        base64url_signature: signLogin(owner, account, challenge.timestamp_iso),
      }),
    });
    return { status: res.status, body: (await res.json()) as { jwt_token?: string } };
  }

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
      LOG_LEVEL: 'silent',
    });
  });

  afterAll(async () => {
    await app?.close();
    await rpc?.close();
    await rm(family.dataDir, { recursive: true, force: true });
  });

  it('login by account id issues no token for a record whose token id is not a TokenId (a `;sub=` in it named another passport in the JWT sub)', async () => {
    const victim = mint(key().accountId);
    for (const odd of [`zz;sub=${victim}`, 'ABCDEFGHIJKL', 'abcdefghijk\u0000']) {
      const owner = key();
      const account = namedAccount(owner);
      mint(account, odd);
      const res = await loginByAccount(owner, account);
      expect([odd, res.status]).not.toEqual([odd, 200]);
      expect(res.body.jwt_token).toBeUndefined();
    }
  });

  it("login by account id issues no token for another account's passport the node lists under it", async () => {
    const alice = key();
    const account = namedAccount(alice);
    const mallory = key();
    rpc.accounts.set(mallory.accountId, []);
    const malloryToken = mint(mallory.accountId);
    // The node answers alice's owner page with mallory's passport.
    rpc.enqueue({
      kind: 'raw-result',
      bytes: bytesOf([rpc.tokens.find((t) => t.token_id === malloryToken)]),
    });
    const res = await loginByAccount(mallory, account);
    expect(res.status).not.toBe(200);
  });

  it.each([
    ['chain_stale', -6 * 3_600_000],
    ['chain_ahead', 365 * 86_400_000],
  ])(
    'health is degraded %s while the final block is far from the clock (a stuck node serves old passports)',
    async (reason, offsetMs) => {
      rpc.blockTimeMs = Date.now() + offsetMs;
      try {
        await new Promise((resolve) => setTimeout(resolve, 1600)); // past the health check's reuse window
        const health = (await (await fetch(`${app.baseUrl}/health`)).json()) as {
          degraded: boolean;
          checks: { chain: { status: string; reason: string; lagSeconds: number } };
        };
        expect(health.degraded).toBe(true);
        expect(health.checks.chain).toMatchObject({ status: 'fail', reason });
        expect(Math.abs(health.checks.chain.lagSeconds + offsetMs / 1000)).toBeLessThan(10);
      } finally {
        rpc.blockTimeMs = Date.now();
      }
    },
  );
});
