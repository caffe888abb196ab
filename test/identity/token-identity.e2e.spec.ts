/**
 * Identity of any passport over real HTTP: `GET /api/identity/token/{tokenId}/public` and `/full`, and
 * the `GET /api/agents` listing (offset cursor, limits, ignored parameters, disclaimer). Errors first.
 */
import { decodeFace, randomFaceTokenId } from '@passport/core';
import { cryptoRandomInt } from '@passport/core/token-id';
import { SELF_DECLARED_DISCLAIMER } from '@passport/core/profile';
import { contractClient } from '../support/contract-fetch.js';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import { bearer, mintAndLogin, mintPassport, newKey } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { eventually } from '../chain/eventually.js';

describe('identity by token id and the agents listing', () => {
  let app: TestApp;
  let request: ReturnType<typeof contractClient>;
  let jwt: string;
  let tokenId: string;
  const owner = newKey();
  const dn =
    'NNSWF=Grace,NSWF=Hopper,Creature=cat,ContactURI=mailto:grace:example.org,AvatarURL=https://a.example/g.png';

  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
    request = contractClient(app.baseUrl);
    ({ jwt } = await mintAndLogin(app));
    ({ tokenId } = await mintPassport(app, {
      owner,
      metadata: { userselected_dn: dn, webhook_url: 'https://hooks.example.org' },
    }));
  });
  afterAll(() => app.close());

  describe('errors', () => {
    it.each(['public', 'full'])(
      '/%s: a malformed token id → 400 INVALID_TOKEN_ID; unknown → 404 IDENTITY_NOT_FOUND',
      async (kind) => {
        const headers = kind === 'full' ? bearer(jwt) : {};
        for (const bad of ['short', 'BJBVCJZQBDSJ', 'bjbvcjzqbds1', 'a'.repeat(13)]) {
          expectErrorEnvelope(
            await request(`/api/identity/token/${bad}/${kind}`, { headers }),
            'INVALID_TOKEN_ID',
          );
        }
        const ghost = randomFaceTokenId(cryptoRandomInt);
        const missing = await request(`/api/identity/token/${ghost}/${kind}`, { headers });
        expect(expectErrorEnvelope(missing, 'IDENTITY_NOT_FOUND').error.details).toEqual({ tokenId: ghost });
      },
    );

    it('/full needs a valid bearer token', async () => {
      expectErrorEnvelope(await request(`/api/identity/token/${tokenId}/full`), 'MISSING_TOKEN');
      expectErrorEnvelope(
        await request(`/api/identity/token/${tokenId}/full`, { headers: bearer('x.y.z') }),
        'INVALIDATED_TOKEN',
      );
    });

    it.each([['0'], ['101'], ['1.5'], ['-1'], ['ten'], ['']])(
      '/api/agents?limit=%s → 400 INVALID_QUERY_PARAMETER',
      async (limit) => {
        const res = await request(`/api/agents?limit=${limit}`);
        expect(expectErrorEnvelope(res, 'INVALID_QUERY_PARAMETER').error.details).toMatchObject({
          parameter: 'limit',
        });
      },
    );

    it('/api/agents with a bad or repeated cursor → 400 INVALID_QUERY_PARAMETER', async () => {
      expect(
        expectErrorEnvelope(await request('/api/agents?cursor=abc'), 'INVALID_QUERY_PARAMETER').error.details,
      ).toMatchObject({ parameter: 'cursor' });
      expectErrorEnvelope(await request('/api/agents?limit=1&limit=2'), 'INVALID_QUERY_PARAMETER');
    });
  });

  it('/public: the public profile', async () => {
    const res = await request(`/api/identity/token/${tokenId}/public`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      tokenId,
      did: `did:passport:${tokenId}`,
      ownerAccountId: owner.accountId,
      displayName: 'Grace Hopper',
      creature: 'cat',
      contactUris: ['mailto:grace:example.org'],
      avatarUrl: 'https://a.example/g.png',
      emojiUrl: null,
      webhookUrl: 'https://hooks.example.org',
      face: decodeFace(tokenId),
      requestId: res.headers.get('x-request-id'),
    });
  });

  it('/full: DN, face, contact URIs, the whole metadata and the disclaimer', async () => {
    const res = await request(`/api/identity/token/${tokenId}/full`, { headers: bearer(jwt) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      tokenId,
      dn: expect.objectContaining({ displayName: 'Grace Hopper', creature: 'cat' }),
      face: decodeFace(tokenId),
      contactUris: ['mailto:grace:example.org'],
      metadata: expect.objectContaining({
        serviceprovider_signature: expect.any(String),
        webhook_url: 'https://hooks.example.org',
        userselected_dn: dn,
      }),
      disclaimer: SELF_DECLARED_DISCLAIMER,
    });
  });

  it('/api/agents pages through every passport with the offset cursor; other parameters are ignored', async () => {
    const minted: string[] = [];
    for (let i = 0; i < 4; i++) minted.push((await mintPassport(app)).tokenId);
    // The ledger file watch is asynchronous, and listings are cached up to 5 s: wait until all appear.
    let all = await request('/api/agents?limit=100&owner=someone');
    await eventually(async () => {
      all = await request('/api/agents?limit=100&owner=someone');
      expect(all.body.agents.map((a: { tokenId: string }) => a.tokenId)).toEqual(
        expect.arrayContaining(minted),
      );
    }, 8000);
    expect(all.status).toBe(200);
    expect(all.body.disclaimer).toBe(SELF_DECLARED_DISCLAIMER);
    expect(all.body.nextCursor).toBeNull();
    const ids: string[] = all.body.agents.map((a: { tokenId: string }) => a.tokenId);
    expect(ids).toContain(tokenId);
    expect(all.body.agents.find((a: { tokenId: string }) => a.tokenId === tokenId)).toEqual({
      tokenId,
      creature: 'cat',
      face: decodeFace(tokenId),
    });

    const paged: string[] = [];
    let cursor: string | null = '';
    let pages = 0;
    while (cursor !== null) {
      const page: { body: { agents: { tokenId: string }[]; nextCursor: string | null } } = await request(
        `/api/agents?limit=2&cursor=${cursor}`,
      );
      // Every page but the last is full: the family-root record is read past, not counted.
      if (page.body.nextCursor !== null) expect(page.body.agents).toHaveLength(2);
      else expect(page.body.agents.length).toBeLessThanOrEqual(2);
      paged.push(...page.body.agents.map((a) => a.tokenId));
      cursor = page.body.nextCursor;
      pages++;
    }
    expect(paged).toEqual(ids);
    expect(ids.length).toBeGreaterThanOrEqual(7);
    expect(pages).toBe(Math.ceil(ids.length / 2));
    // Found by a probe: the first page of one was empty (the family root came first), with a next cursor.
    const first = await request('/api/agents?limit=1');
    expect(first.body.agents.map((a: { tokenId: string }) => a.tokenId)).toEqual([ids[0]]);
    const defaults = await request('/api/agents');
    expect(defaults.body.agents.length).toBeLessThanOrEqual(20);
  }, 15_000);
});
