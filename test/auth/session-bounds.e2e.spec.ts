/**
 * Hostile holders against the session bounds, over real HTTP against the real app (small caps so the
 * attacks stay fast): one passport cannot log another out by logging in many times (its own oldest
 * sessions close; when the store is full, new logins are refused with 503 SESSION_CAPACITY_REACHED
 * and nobody is evicted); one challenge cannot be spent once per letter case of the identifier; a
 * passport over its quota can still log out; a passport past its not_after is refused by the JWT tier.
 */
import { type SessionStore } from '@passport/core/ports';
import { SESSION_STORE } from '../../apps/api/src/platform/infrastructure/di-tokens.js';
import { contractClient } from '../support/contract-fetch.js';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import { bearer, fetchChallenge, login, mintAndLogin, mintPassport, newKey } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const claimsOf = (jwt: string): Record<string, any> =>
  JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));

describe('session bounds (SESSION_MAX_PER_PASSPORT=3, SESSION_MAX_ENTRIES=6)', () => {
  let app: TestApp;
  let request: ReturnType<typeof contractClient>;

  beforeAll(async () => {
    app = await startTestApp({ STORE: 'sqlite', SESSION_MAX_PER_PASSPORT: '3', SESSION_MAX_ENTRIES: '6' });
    request = contractClient(app.baseUrl);
  });
  afterAll(() => app.close());

  const nonce = (jwt: string) => request('/api/holanonce16ts', { headers: bearer(jwt) });

  it("many logins of one passport close its own oldest sessions, never another passport's; a full store refuses logins", async () => {
    const victim = await mintAndLogin(app);
    const key = newKey();
    const attacker = await mintPassport(app, { owner: key });
    const tokens: string[] = [];
    // A challenge is single use: each login signs a distinct (earlier) second of one fetched challenge.
    // Shifting fresh challenges instead repeats a second whenever a login takes a second (a loaded CI).
    const challenge = await fetchChallenge(app.baseUrl);
    for (let i = 0; i < 5; i++) {
      const res = await login(app.baseUrl, {
        identifier: attacker.tokenId,
        key,
        challenge,
        shiftSeconds: -i,
      });
      expect(res.status).toBe(200);
      tokens.push(res.body.jwt_token);
      // Each token used while its session is open, so the store's read cache holds it (a mutation
      // probe: a store keeping a superseded session in its cache passed while no token had been read).
      if (i < 3) expect((await nonce(res.body.jwt_token)).status).toBe(200);
    }
    // The attacker holds its 3 newest sessions; its 2 oldest were closed as superseded.
    for (const old of tokens.slice(0, 2)) {
      const res = await nonce(old);
      expectErrorEnvelope(res, 'INVALIDATED_TOKEN');
      expect(res.body.error.details.cause).toBe('session_closed');
    }
    for (const current of tokens.slice(2)) expect((await nonce(current)).status).toBe(200);
    expect((await nonce(victim.jwt)).status).toBe(200);

    // Fill the store with open sessions of other passports: 1 victim + 3 attacker + 2 more = 6.
    await mintAndLogin(app);
    await mintAndLogin(app);
    const refusedKey = newKey();
    const refused = await mintPassport(app, { owner: refusedKey });
    const res = await login(app.baseUrl, { identifier: refused.tokenId, key: refusedKey });
    expectErrorEnvelope(
      { status: res.status, body: res.body, headers: res.headers } as never,
      'SESSION_CAPACITY_REACHED',
    );
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('60');
    // Closed as a 429 is (from a mutation probe: dropping the close for this code passed every test).
    expect(res.headers.get('connection')).toBe('close');
    // Nobody was logged out to make room.
    expect((await nonce(victim.jwt)).status).toBe(200);
    for (const current of tokens.slice(2)) expect((await nonce(current)).status).toBe(200);
    // The attacker's own further logins still rotate within its bound (closing its own, which frees a place).
    const again = await login(app.baseUrl, {
      identifier: attacker.tokenId,
      key,
      challenge,
      shiftSeconds: -10,
    });
    expect(again.status).toBe(200);
    expect((await nonce(victim.jwt)).status).toBe(200);
  });
});

describe('login challenge, quota and passport status', () => {
  let app: TestApp;
  let request: ReturnType<typeof contractClient>;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
    request = contractClient(app.baseUrl);
  });
  afterAll(() => app.close());

  // Found by a probe: a token's passport_idsignature (the server key over passport_id + ISO of iat) is
  // byte for byte the server passport's login message, so any holder of a token logged in as the server
  // (and escaped its own quota).
  it("refuses a login as the server's own passport, such as the one every token carries", async () => {
    const { jwt } = await mintAndLogin(app, { metadata: { max_requests: '5', maxrq_window: '3600' } });
    const claims = claimsOf(jwt);
    const replayed = await fetch(`${app.baseUrl}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        passportid: claims.passport_id,
        timestamp: claims.iat,
        base64url_signature: claims.passport_idsignature,
      }),
    });
    const body = (await replayed.json()) as { error: { code: string; details: Record<string, unknown> } };
    expect(replayed.status).toBe(401);
    expect(body.error.code).toBe('SERVER_PASSPORT_LOGIN_REFUSED');
    expect(body.error.details).toMatchObject({ failureReason: 'SERVER_PASSPORT_LOGIN_REFUSED' });
  });

  // A probe: metadata the ledger accepts made a 24 KB token, refused on every JWT route (400
  // REQUEST_HEADER_TOO_LARGE): the holder was logged in and locked out.
  it('refuses a login whose token would not fit a request (PASSPORT_METADATA_TOO_LARGE), before using the challenge', async () => {
    const key = newKey();
    const big = await mintPassport(app, {
      owner: key,
      metadata: { allowed_iso3166list: 'US,'.repeat(2000), allowed_cidr: '10.0.0.0/8,'.repeat(300) },
    });
    const challenge = await fetchChallenge(app.baseUrl);
    const refused = await login(app.baseUrl, { identifier: big.tokenId, key, challenge });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('PASSPORT_METADATA_TOO_LARGE');
    expect(refused.body.error.details).toMatchObject({
      failureReason: 'PASSPORT_METADATA_TOO_LARGE',
      maxTokenBytes: 8192,
    });
    expect(refused.body.error.details.tokenBytes).toBeGreaterThan(8192);
    // A passport just under the bound logs in, and its token is usable.
    const fitting = await mintPassport(app, {
      owner: key,
      metadata: { allowed_iso3166list: 'US,'.repeat(1500) },
    });
    const ok = await login(app.baseUrl, { identifier: fitting.tokenId, key, challenge });
    expect(ok.status).toBe(200);
    const used = await fetch(`${app.baseUrl}/api/holanonce16ts`, { headers: bearer(ok.body.jwt_token) });
    expect(used.status).toBe(200);
  });

  it('one challenge gives one session, whatever the letter case of the identifier', async () => {
    const key = newKey();
    const { tokenId } = await mintPassport(app, { owner: key });
    const challenge = await fetchChallenge(app.baseUrl);
    expect((await login(app.baseUrl, { identifier: tokenId, key, challenge })).status).toBe(200);
    const variants = [
      tokenId.toUpperCase(),
      tokenId[0].toUpperCase() + tokenId.slice(1),
      tokenId.slice(0, 6) + tokenId.slice(6).toUpperCase(),
    ];
    for (const identifier of variants) {
      const res = await login(app.baseUrl, { identifier, key, challenge });
      expect(res.status).not.toBe(200);
      expect(res.body.jwt_token).toBeUndefined();
    }
    const sessions = app.app.get<SessionStore>(SESSION_STORE);
    const listed = await sessions.list({ offset: 0, limit: 100 });
    expect(listed.items.filter((s) => s.tokenId === tokenId)).toHaveLength(1);
  });

  it('a passport over its quota can still log out (both paths)', async () => {
    for (const path of ['/api/logout', '/api/sessions/logout']) {
      const limited = await mintAndLogin(app, { metadata: { max_requests: '2', maxrq_window: '3600' } });
      for (let i = 0; i < 2; i++)
        expect((await request('/api/holanonce16ts', { headers: bearer(limited.jwt) })).status).toBe(200);
      expectErrorEnvelope(
        await request('/api/holanonce16ts', { headers: bearer(limited.jwt) }),
        'RATE_LIMIT_EXCEEDED',
      );
      const out = await request(path, { method: 'POST', headers: bearer(limited.jwt) });
      expect(out.status).toBe(200);
      expect(out.body.sessionClosed).toBe(true);
    }
  });

  it('a passport past its not_after: the JWT tier refuses its token (passport_not_live) and closes the session', async () => {
    // Far enough ahead that a slow (loaded) login still happens before it.
    const notAfterMs = Date.now() + 5000;
    const { jwt } = await mintAndLogin(app, { metadata: { not_after: new Date(notAfterMs).toISOString() } });
    const claims = claimsOf(jwt);
    expect(claims.session_exp).toBeLessThanOrEqual(Math.floor(notAfterMs / 1000));
    // Past not_after, and past the chain cache's 5 s.
    await new Promise((resolve) => setTimeout(resolve, Math.max(5200, notAfterMs - Date.now() + 200)));
    const res = await request('/api/holanonce16ts', { headers: bearer(jwt) });
    expectErrorEnvelope(res, 'INVALIDATED_TOKEN');
    // The session ends at not_after too, so whichever check sees it first names it.
    expect(['passport_not_live', 'session_expired', 'expired']).toContain(res.body.error.details.cause);
  });
});
