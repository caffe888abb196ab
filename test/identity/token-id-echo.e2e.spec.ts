/**
 * A malformed token id on the identity routes is 400 INVALID_TOKEN_ID whose `details.tokenId` echoes the
 * path segment cut to its first 64 characters (unprintable ones as `?`): a 100-character segment (the
 * longest path parameter the server takes) is never sent back whole. Real app over HTTP.
 */
import { contractClient } from '../support/contract-fetch.js';
import { bearer, mintAndLogin } from '../support/passports.js';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('INVALID_TOKEN_ID echoes at most 64 characters', () => {
  let app: TestApp;
  let request: ReturnType<typeof contractClient>;

  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
    request = contractClient(app.baseUrl);
  });
  afterAll(() => app.close());

  it.each(['public', 'full'])('/api/identity/token/<100 characters>/%s', async (view) => {
    const { jwt } = await mintAndLogin(app);
    const segment = 'ab'.repeat(50);
    const res = await request(`/api/identity/token/${segment}/${view}`, { headers: bearer(jwt) });
    expect(expectErrorEnvelope(res, 'INVALID_TOKEN_ID').error.details).toEqual({
      tokenId: segment.slice(0, 64),
    });
  });

  it('an unprintable character is echoed as ?', async () => {
    const res = await request('/api/identity/token/abc%07def/public');
    expect(expectErrorEnvelope(res, 'INVALID_TOKEN_ID').error.details).toEqual({ tokenId: 'abc?def' });
  });
});
