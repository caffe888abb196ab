/**
 * The login token's size bound at its exact edge (docs/protocol.md §3: a token over 8192 bytes would not
 * fit the request headers it must travel in). The session's longest token grows in steps of one or two
 * bytes as a copied metadata field grows: a passport whose tokens are exactly 8192 bytes logs in, and
 * the next size, 8194, is 401 PASSPORT_METADATA_TOO_LARGE with `tokenBytes: 8194`. Sizes come from the
 * core's `loginTokenBytes` for the metadata as minted; real app over HTTP, real ledger file.
 */
import { randomFaceTokenId } from '@passport/core';
import { loginTokenBytes, MAX_LOGIN_TOKEN_BYTES } from '@passport/core/login';
import { cryptoRandomInt } from '@passport/core/token-id';
import { fetchChallenge, login, mintPassport, newKey, serverIdentityOf } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('the login token size bound at 8192 bytes', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
  });
  afterAll(() => app.close());

  /** The metadata mintPassport writes, with a webhook_url of `length` characters. */
  const webhookOf = (length: number) => `https://hooks.example.org/${'a'.repeat(length - 26)}`;
  const bytesFor = (tokenId: string, length: number): number => {
    const server = serverIdentityOf(app);
    return loginTokenBytes({
      passport: {
        tokenId,
        metadata: {
          serviceprovider_id: server.serviceProviderId,
          subjectuniqueidentifier_url: app.baseUrl,
          not_before: '',
          not_after: '',
          max_requests: '0',
          maxrq_window: '60',
          userselected_dn: 'NNSWF=Test,NSWF=Agent,Creature=robot',
          webhook_url: webhookOf(length),
          serviceprovider_signature: 'A'.repeat(86),
        },
      },
      server: {
        serviceProviderId: server.serviceProviderId,
        tokenId: server.tokenId,
        ownerId: server.ownerId,
        publicBaseUrl: app.baseUrl,
      },
    });
  };

  it('exactly 8192 bytes logs in; 8194 is refused naming its size', async () => {
    expect(MAX_LOGIN_TOKEN_BYTES).toBe(8192);
    const tokenId = randomFaceTokenId(cryptoRandomInt);
    let length = 100;
    while (bytesFor(tokenId, length) < 8192) length++;
    if (bytesFor(tokenId, length) > 8192) length--; // the bound itself is between two sizes: take the one under
    const fits = bytesFor(tokenId, length);
    const over = bytesFor(tokenId, length + 1);
    // ceil(4n/3) for n payload bytes: 8192 is reached (n = 6051), 8193 never is.
    expect([fits, over]).toEqual([8192, 8194]);

    const key = newKey();
    await mintPassport(app, { owner: key, tokenId, metadata: { webhook_url: webhookOf(length) } });
    const ok = await login(app.baseUrl, { identifier: tokenId, key });
    expect(ok.status).toBe(200);
    // The session's longest token (a renewal's) is the size judged; the login's own is no longer.
    expect(Buffer.byteLength(ok.body.jwt_token as string)).toBeLessThanOrEqual(fits);

    const other = randomFaceTokenId(cryptoRandomInt);
    expect(bytesFor(other, length + 1)).toBe(over);
    await mintPassport(app, { owner: key, tokenId: other, metadata: { webhook_url: webhookOf(length + 1) } });
    const refused = await login(app.baseUrl, {
      identifier: other,
      key,
      challenge: await fetchChallenge(app.baseUrl),
    });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({
      code: 'PASSPORT_METADATA_TOO_LARGE',
      details: { tokenBytes: over, maxTokenBytes: 8192 },
    });
  });
});
