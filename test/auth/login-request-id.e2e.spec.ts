/**
 * The login and logout 200 bodies carry the request's id (spec: Login response; LogoutResponseDto):
 * `requestId` is the `X-Request-Id` the response is sent with, as on every other body of the API.
 * Real app over HTTP.
 */
import { contractClient } from '../support/contract-fetch.js';
import { bearer, login, mintPassport, newKey } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('requestId on the login and logout bodies', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
  });
  afterAll(() => app.close());

  it('is the X-Request-Id of the response', async () => {
    const key = newKey();
    const { tokenId } = await mintPassport(app, { owner: key });
    const loggedIn = await login(app.baseUrl, { identifier: tokenId, key });
    expect(loggedIn.status).toBe(200);
    expect(loggedIn.body.requestId).toEqual(expect.any(String));
    expect(loggedIn.body.requestId).not.toBe('');
    expect(loggedIn.body.requestId).toBe(loggedIn.headers.get('x-request-id'));

    const out = await contractClient(app.baseUrl)('/api/logout', {
      method: 'POST',
      headers: bearer(loggedIn.body.jwt_token as string),
    });
    expect(out.status).toBe(200);
    expect(out.body.requestId).not.toBe('');
    expect(out.body.requestId).toBe(out.headers.get('x-request-id'));
  });
});
