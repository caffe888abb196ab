/**
 * Failing (admin probe, review): `POST /api/sessions/logout` (the alias of `/api/logout`, under the
 * admin paths) takes a body and ignores every field but `reason`. An administrator's script that sends
 * it the session to end (`{"sessionId": "<a compromised holder's session>"}`) gets 200 "Session closed."
 * and its own session closed, while the holder's session stays open. The session list refuses a
 * parameter it does not take for this very reason (a filter taken for one); the logout body should too
 * (400 VALIDATION_FAILED naming the field), leaving both sessions open.
 */
import { contractClient } from '../support/contract-fetch.js';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import { bearer, mintAndLogin } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const sessionOf = (jwt: string): string =>
  JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8')).session_id;

describe('logout bodies that name a session or passport', () => {
  let app: TestApp;
  let request: ReturnType<typeof contractClient>;

  beforeAll(async () => {
    app = await startTestApp({ STORE: 'sqlite' });
    request = contractClient(app.baseUrl);
  });
  afterAll(() => app.close());

  it.each(['/api/sessions/logout', '/api/logout'])(
    '%s {sessionId: <another holder>} is refused and closes nothing',
    async (path) => {
      const holder = await mintAndLogin(app);
      const admin = await mintAndLogin(app, {
        metadata: {
          permissioned_routes: JSON.stringify({ entities: { methods: { '/api/sessions/revoke': '60' } } }),
        },
      });
      const res = await request(path, {
        method: 'POST',
        headers: { ...bearer(admin.jwt), 'content-type': 'application/json' },
        body: JSON.stringify({ sessionId: sessionOf(holder.jwt), reason: 'compromised' }),
      });
      expectErrorEnvelope(res, 'VALIDATION_FAILED');
      expect((await request('/api/holanonce16ts', { headers: bearer(admin.jwt) })).status).toBe(200);
      expect((await request('/api/holanonce16ts', { headers: bearer(holder.jwt) })).status).toBe(200);
    },
  );

  it.each<[string, (jwt: string, tokenId: string) => unknown]>([
    ['its own sessionId', (jwt) => ({ sessionId: sessionOf(jwt) })],
    ['its own session_id and tokenId', (jwt, tokenId) => ({ session_id: sessionOf(jwt), tokenId })],
    [
      'fields it does not take (ignored, as production clients send them)',
      () => ({ client: 'sdk', all: true }),
    ],
    ['a null or empty sessionId (not given)', () => ({ sessionId: null, session_id: '' })],
    ['its own tokenId in capitals', (_jwt, tokenId) => ({ tokenId: tokenId.toUpperCase() })],
    // JSON null is no body (docs/protocol.md).
    ['JSON null', () => null],
  ])('a body with %s logs the caller out', async (_name, bodyOf) => {
    const holder = await mintAndLogin(app);
    const res = await request('/api/logout', {
      method: 'POST',
      headers: { ...bearer(holder.jwt), 'content-type': 'application/json' },
      body: JSON.stringify(bodyOf(holder.jwt, holder.tokenId)),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ sessionClosed: true, sessionId: sessionOf(holder.jwt) });
    expect((await request('/api/holanonce16ts', { headers: bearer(holder.jwt) })).status).toBe(401);
  });

  // A mutation probe's find: a body that is no object was ignored and the caller's session closed, so an
  // administrator's script sending a list of sessions to end (`[{"sessionId": …}]`) closed its own, the
  // hazard the field check exists for. Such a body is malformed: 400, and nothing is closed.
  it.each<[string, (jwt: string) => unknown]>([
    ['an array naming another session', (jwt) => [{ sessionId: `${sessionOf(jwt)}x` }]],
    ['an empty array', () => []],
    ['a string', () => 'sessionId'],
    ['a number', () => 7],
    ['true', () => true],
  ])(
    'a body that is %s is refused 400 VALIDATION_FAILED, the caller still logged in',
    async (_name, bodyOf) => {
      const holder = await mintAndLogin(app);
      const res = await request('/api/logout', {
        method: 'POST',
        headers: { ...bearer(holder.jwt), 'content-type': 'application/json' },
        body: JSON.stringify(bodyOf(holder.jwt)),
      });
      expect(expectErrorEnvelope(res, 'VALIDATION_FAILED').error.details).toMatchObject({ field: 'body' });
      expect((await request('/api/holanonce16ts', { headers: bearer(holder.jwt) })).status).toBe(200);
    },
  );

  // A mutation probe: the caller's own token id taken as its own session passed.
  it("a session field holding the caller's token id (no session of its own) is refused", async () => {
    const holder = await mintAndLogin(app);
    const res = await request('/api/logout', {
      method: 'POST',
      headers: { ...bearer(holder.jwt), 'content-type': 'application/json' },
      body: JSON.stringify({ sessionId: holder.tokenId }),
    });
    expectErrorEnvelope(res, 'VALIDATION_FAILED');
    expect((await request('/api/holanonce16ts', { headers: bearer(holder.jwt) })).status).toBe(200);
  });

  // { tokenId: another }: a mutation probe dropped tokenid from the names of a passport, and nothing failed.
  it.each([
    { SID: 'sess_other' },
    { 'passport-id': 'aaaaaaaaaaaa' },
    { session: { id: 'sess_other' } },
    { tokenId: 'aaaaaaaaaaaa' },
  ])(
    'a body naming another session or passport in another spelling (%j) is refused, the caller still logged in',
    async (body) => {
      const holder = await mintAndLogin(app);
      const res = await request('/api/sessions/logout', {
        method: 'POST',
        headers: { ...bearer(holder.jwt), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expectErrorEnvelope(res, 'VALIDATION_FAILED');
      expect(res.body).toMatchObject({ error: { details: { field: Object.keys(body)[0] } } });
      expect((await request('/api/holanonce16ts', { headers: bearer(holder.jwt) })).status).toBe(200);
    },
  );
});
