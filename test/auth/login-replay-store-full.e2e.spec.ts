/**
 * Used login challenges are kept in the replay store (single use, across restarts). When that store
 * is full of live records, a login cannot record its challenge and must fail closed: 503
 * REPLAY_STORE_FULL in the envelope (declared in the OpenAPI document), never a session, and the
 * sessions already open keep working.
 */
import { contractClient } from '../support/contract-fetch.js';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import {
  bearer,
  fetchChallenge,
  mintAndLogin,
  mintPassport,
  newKey,
  signLogin,
} from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// Login challenges may use 1 % above the cap (at least one record): with REPLAY_MAX_RECORDS=2 the third
// login is the reserve's, the fourth finds the store full.
describe('login when the replay store and its login reserve are full (REPLAY_MAX_RECORDS=2)', () => {
  let app: TestApp;
  let request: ReturnType<typeof contractClient>;

  beforeAll(async () => {
    app = await startTestApp({ STORE: 'sqlite', REPLAY_MAX_RECORDS: '2' });
    request = contractClient(app.baseUrl);
  });
  afterAll(() => app.close());

  it('refuses the login with 503 REPLAY_STORE_FULL and keeps the open sessions', async () => {
    const first = await mintAndLogin(app);
    const second = await mintAndLogin(app);
    const reserve = await mintAndLogin(app);
    const key = newKey();
    const third = await mintPassport(app, { owner: key });
    const challenge = await fetchChallenge(app.baseUrl);
    const res = await request('/api/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        passportid: third.tokenId,
        timestamp_iso: challenge.timestamp_iso,
        passportid_base64url_signature: signLogin(key, third.tokenId, challenge.timestamp_iso),
      }),
    });
    expectErrorEnvelope(res, 'REPLAY_STORE_FULL');
    expect(res.status).toBe(503);
    expect(JSON.stringify(res.body)).not.toContain('jwt_token');
    for (const open of [first, second, reserve]) {
      expect((await request('/api/holanonce16ts', { headers: bearer(open.jwt) })).status).toBe(200);
    }
  });
});
