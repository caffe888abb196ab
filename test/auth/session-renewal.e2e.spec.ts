/**
 * Long-lived agents over real HTTP against the real app, time driven by the core's FixedClock:
 * sessions outlive one token, a token in its last 20 % is answered with `New-Token` (same session
 * claims, new iat/jti/exp/passport_idsignature, lifetime × 0.85, never past session_exp), the old token
 * keeps working until its own exp, concurrent requests at the renewal point all succeed and share one
 * renewal, logout (at both paths) closes every token of the session and accepts an expired token, and
 * renewal stops at session_exp, after logout, after revocation, and with JWT_RENEWAL=off.
 */
import { createPublicKey, verify } from 'node:crypto';
import { createRenewingFetch } from '@passport/core';
import { FixedClock } from '@passport/core/testing';
import { type SessionStore } from '@passport/core/ports';
import { updateLedgerFile } from '@passport/adapters/ledger';
import { SESSION_STORE } from '../../apps/api/src/platform/infrastructure/di-tokens.js';
import { contractClient } from '../support/contract-fetch.js';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import {
  bearer,
  ledgerFileOf,
  login,
  mintAndLogin,
  mintPassport,
  newKey,
  serverIdentityOf,
} from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { holaLine } from '../verify/hola-lines.js';

type Claims = Record<string, any>;
const claimsOf = (jwt: string): Claims =>
  JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));

describe('token renewal and logout (JWT_RENEWAL=server)', () => {
  let app: TestApp;
  let clock: FixedClock;
  let request: ReturnType<typeof contractClient>;
  let sessions: SessionStore;

  beforeAll(async () => {
    // Whole seconds, so that iat = clock / 1000 exactly.
    clock = new FixedClock(Math.floor(Date.now() / 1000) * 1000);
    app = await startTestApp({}, { clock });
    request = contractClient(app.baseUrl);
    sessions = app.app.get<SessionStore>(SESSION_STORE);
  });
  afterAll(() => app.close());

  const nonce = (jwt: string) => request('/api/holanonce16ts', { headers: bearer(jwt) });
  const logout = (jwt: string, path = '/api/logout', body?: unknown) =>
    request(path, {
      method: 'POST',
      headers: { ...bearer(jwt), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  /** Sets the clock to `iat + seconds` of a token. */
  const at = (claims: Claims, seconds: number) => clock.set((claims.iat + seconds) * 1000);

  function expectIdSignatureValid(claims: Claims): void {
    const key = createPublicKey({
      key: Buffer.concat([
        Buffer.from('302a300506032b6570032100', 'hex'),
        Buffer.from(serverIdentityOf(app).signer.publicKey),
      ]),
      format: 'der',
      type: 'spki',
    });
    const message = Buffer.from(claims.passport_id + new Date(claims.iat * 1000).toISOString(), 'utf8');
    expect(verify(null, message, key, Buffer.from(claims.passport_idsignature, 'base64url'))).toBe(true);
  }

  it('a login token carries the session claims production clients read', async () => {
    const key = newKey();
    const minted = await mintPassport(app, { owner: key });
    const answer = await login(app.baseUrl, { identifier: minted.tokenId, key });
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const jwt = answer.body.jwt_token as string;
    const claims = claimsOf(jwt);
    expect(claims).toMatchObject({
      session_iat: claims.iat,
      session_exp: claims.iat + 5200,
      exp: claims.iat + 3600,
      session_status: 'new',
      passport_id: serverIdentityOf(app).tokenId,
    });
    expectIdSignatureValid(claims);
  });

  it('no New-Token before the last 20 %; then a fresh token that works beside the old one until its exp', async () => {
    const { jwt } = await mintAndLogin(app);
    const old = claimsOf(jwt);
    at(old, 2879);
    const early = await nonce(jwt);
    expect(early.status).toBe(200);
    expect(early.headers.get('new-token')).toBeNull();
    expect(early.headers.get('cache-control')).toBeNull();

    at(old, 2880);
    const due = await nonce(jwt);
    expect(due.status).toBe(200);
    // A response carrying a token is never stored by a cache (a probe found none said so).
    expect(due.headers.get('cache-control')).toBe('no-store');
    const renewedJwt = due.headers.get('new-token')!;
    expect(renewedJwt).toEqual(expect.any(String));
    const renewed = claimsOf(renewedJwt);
    const kept = [
      'iss',
      'sub',
      'aud',
      'nbf',
      'session_id',
      'session_iat',
      'session_exp',
      'passport_id',
      'passport_owner',
      'passport_maxrequests',
      'passport_maxrqwindow',
      'passport_permissionedroutes',
      'passport_webhookurl',
      'passport_webhookcidr',
      'passport_allowedcidr',
      'passport_allowediso3166list',
      'passport_subjectuniqueidentifier_url',
      'config_iso639',
      'config_iso3166',
      'config_iso15924',
      'config_timeoptions',
    ];
    for (const claim of kept) expect([claim, renewed[claim]]).toEqual([claim, old[claim]]);
    expect(renewed.iat).toBe(old.iat + 2880);
    expect(renewed.jti).not.toBe(old.jti);
    // old lifetime 3600 × 0.85 = 3060 from now, capped by session_exp (iat + 5200)
    expect(renewed.exp).toBe(Math.min(renewed.iat + 3060, old.session_exp));
    expect(renewed.session_status).toBe('renewed_light_verification');
    expect(renewed.passport_idsignature).not.toBe(old.passport_idsignature);
    expectIdSignatureValid(renewed);
    await expect(sessions.get(old.session_id)).resolves.toMatchObject({
      renewalCount: 1,
      lastRenewedAtMs: (old.iat + 2880) * 1000,
    });

    expect((await nonce(renewedJwt)).status).toBe(200);
    at(old, 3599);
    expect((await nonce(jwt)).status).toBe(200);
    at(old, 3600);
    const expired = await nonce(jwt);
    expectErrorEnvelope(expired, 'INVALIDATED_TOKEN');
    expect(expired.body.error.details.cause).toBe('expired');
    expect((await nonce(renewedJwt)).status).toBe(200);
  });

  // Found by a probe: the optional bearer of verify and signclient was checked but never renewed,
  // while their OpenAPI answers declare New-Token (every other route that takes a token renews it).
  it('the optional bearer of verify and signclient is renewed as on every JWT route, on success and on a 400', async () => {
    const post = (path: string, jwt: string, body: unknown) =>
      request(path, {
        method: 'POST',
        headers: { ...bearer(jwt), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const { tokenId, jwt, key } = await mintAndLogin(app);
    const old = claimsOf(jwt);
    at(old, 2879);
    const line = () =>
      holaLine(app, {
        sender: tokenId,
        signer: key.signer,
        timestamp: new Date(clock.nowMs()).toISOString(),
      });
    const early = await post('/api/identity/verify', jwt, { hola: line() });
    expect([early.status, early.body.verified, early.headers.get('new-token')]).toEqual([200, true, null]);

    at(old, 2880);
    const verified = await post('/api/identity/verify', jwt, { hola: line() });
    expect([verified.status, verified.body.verified]).toEqual([200, true]);
    expect(verified.headers.get('cache-control')).toBe('no-store');
    const renewed = claimsOf(verified.headers.get('new-token')!);
    expect([renewed.session_id, renewed.iat, renewed.session_status]).toEqual([
      old.session_id,
      old.iat + 2880,
      'renewed_light_verification',
    ]);
    // One renewal per token, shared: the next requests with the old token get the same new one.
    const refused = await post('/api/identity/verify', jwt, { hola: 'not a line' });
    expectErrorEnvelope(refused, 'HOLA_VALIDATION_FAILED');
    expect(refused.headers.get('new-token')).toBe(verified.headers.get('new-token'));
    const signclient = await post('/api/signclient', jwt, {});
    expectErrorEnvelope(signclient, 'SIGNCLIENT_INVALID_REQUEST');
    expect(signclient.headers.get('new-token')).toBe(verified.headers.get('new-token'));
    await expect(sessions.get(old.session_id)).resolves.toMatchObject({ renewalCount: 1 });
  });

  it('the privileged session list shows the renewals of a session', async () => {
    const admin = await mintAndLogin(app, {
      metadata: { permissioned_routes: JSON.stringify({ entities: { methods: { '/api/sessions': '60' } } }) },
    });
    const claims = claimsOf(admin.jwt);
    at(claims, 3000);
    const renewedJwt = (await nonce(admin.jwt)).headers.get('new-token')!;
    const listed = await request('/api/sessions?limit=100', { headers: bearer(renewedJwt) });
    expect(listed.status).toBe(200);
    const mine = listed.body.sessions.find((v: { sessionId: string }) => v.sessionId === claims.session_id);
    expect(mine).toMatchObject({
      status: 'open',
      renewalCount: 1,
      lastRenewedAt: new Date((claims.iat + 3000) * 1000).toISOString(),
    });
  });

  it('renewal stops at session_exp: the agent logs in again then', async () => {
    const { jwt } = await mintAndLogin(app);
    const first = claimsOf(jwt);
    at(first, 3000);
    const renewedJwt = (await nonce(jwt)).headers.get('new-token')!;
    const renewed = claimsOf(renewedJwt);
    expect(renewed.exp).toBe(first.session_exp);
    // The renewed token's own last 20 %: nothing left to gain, no New-Token.
    at(first, 5100);
    const late = await nonce(renewedJwt);
    expect(late.status).toBe(200);
    expect(late.headers.get('new-token')).toBeNull();
    at(first, 5200);
    const over = await nonce(renewedJwt);
    expectErrorEnvelope(over, 'INVALIDATED_TOKEN');
    expect(over.headers.get('new-token')).toBeNull();
  });

  it('50 concurrent requests with a token at its renewal point all succeed and share one renewal', async () => {
    const { jwt } = await mintAndLogin(app);
    const claims = claimsOf(jwt);
    at(claims, 3000);
    const responses = await Promise.all(Array.from({ length: 50 }, () => nonce(jwt)));
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
    const tokens = new Set(responses.map((r) => r.headers.get('new-token')));
    expect(tokens.size).toBe(1);
    expect([...tokens][0]).toEqual(expect.any(String));
    await expect(sessions.get(claims.session_id)).resolves.toMatchObject({ renewalCount: 1 });
  });

  it('after logout both the old and the renewed token are refused; the response carries a termination token', async () => {
    const { jwt } = await mintAndLogin(app);
    const claims = claimsOf(jwt);
    at(claims, 3000);
    const renewedJwt = (await nonce(jwt)).headers.get('new-token')!;
    const out = await logout(renewedJwt, '/api/logout', { reason: 'agent shutting down' });
    expect(out.status).toBe(200);
    expect(out.headers.get('cache-control')).toBe('no-store');
    expect(out.body).toMatchObject({
      sessionClosed: true,
      sessionId: claims.session_id,
      message: 'Session closed.',
    });
    const termination = claimsOf(out.headers.get('new-token')!);
    expect(termination).toMatchObject({
      session_status: 'closed',
      session_id: claims.session_id,
      iat: claims.iat + 3000,
      exp: claims.iat + 3060,
    });
    expectIdSignatureValid(termination);
    for (const token of [jwt, renewedJwt, out.headers.get('new-token')!]) {
      const res = await nonce(token);
      expectErrorEnvelope(res, 'INVALIDATED_TOKEN');
      expect(res.body.error.details.cause).toBe('session_closed');
      expect(res.headers.get('new-token')).toBeNull();
    }
    await expect(sessions.get(claims.session_id)).resolves.toMatchObject({
      closeReason: 'logout: agent shutting down',
    });
  });

  it.each([
    ['over 100 characters', 'x'.repeat(101)],
    ['not ASCII', 'café'],
    ['a control character', 'bye\u001b[31m'],
    ['not a string', 5],
  ])(
    'a logout reason %s is not kept, and the logout still happens (reference/login.md)',
    async (_, reason) => {
      const { jwt } = await mintAndLogin(app);
      const out = await logout(jwt, '/api/logout', { reason });
      expect(out.status).toBe(200);
      expect(out.body).toMatchObject({ sessionClosed: true });
      await expect(sessions.get(claimsOf(jwt).session_id)).resolves.toMatchObject({ closeReason: 'logout' });
    },
  );

  it('POST /api/sessions/logout is the same operation, and accepts an expired token of an open session', async () => {
    const { jwt } = await mintAndLogin(app);
    const claims = claimsOf(jwt);
    at(claims, 3600);
    expectErrorEnvelope(await nonce(jwt), 'INVALIDATED_TOKEN');
    const out = await logout(jwt, '/api/sessions/logout', {});
    expect(out.status).toBe(200);
    expect(Object.keys(out.body).sort()).toEqual(['message', 'requestId', 'sessionClosed', 'sessionId']);
    expect(out.body).toMatchObject({ sessionClosed: true, sessionId: claims.session_id });
    expect(claimsOf(out.headers.get('new-token')!).session_status).toBe('closed');
    // Closed now: a second logout with it is refused like any other use.
    const again = await logout(jwt, '/api/sessions/logout');
    expectErrorEnvelope(again, 'INVALIDATED_TOKEN');
    expect(again.body.error.details.cause).toBe('session_closed');
  });

  it('logout still refuses a forged, wrongly signed or session-less token', async () => {
    const { jwt } = await mintAndLogin(app);
    const [h, , s] = jwt.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claimsOf(jwt), session_id: 'sess_x' })).toString('base64url')}.${s}`;
    const res = await logout(forged, '/api/sessions/logout');
    expectErrorEnvelope(res, 'INVALIDATED_TOKEN');
    expect(res.body.error.details.cause).toBe('bad_signature');
    expectErrorEnvelope(await logout('nope', '/api/sessions/logout'), 'INVALIDATED_TOKEN');
    expectErrorEnvelope(await request('/api/sessions/logout', { method: 'POST' }), 'MISSING_TOKEN');
  });

  it("the core's renewing fetch swaps in New-Token and keeps one session alive across many token lifetimes", async () => {
    const { jwt } = await mintAndLogin(app);
    const first = claimsOf(jwt);
    const saved: string[] = [];
    let closed = 0;
    const call = createRenewingFetch({
      token: jwt,
      onNewToken: (t) => void saved.push(t),
      onSessionClosed: () => closed++,
    });
    for (const seconds of [100, 2900, 5000]) {
      at(first, seconds);
      expect((await call(`${app.baseUrl}/api/holanonce16ts`)).status).toBe(200);
    }
    // Renewed at 2900 (exp → session_exp); at 5000 that token is in its own last 20 % but cannot outlive the session.
    expect(saved).toHaveLength(1);
    expect(call.token()).toBe(saved[0]);
    expect(claimsOf(call.token())).toMatchObject({ session_id: first.session_id, exp: first.session_exp });
    const out = await call(`${app.baseUrl}/api/sessions/logout`, { method: 'POST' });
    expect(out.status).toBe(200);
    expect(closed).toBe(1);
    expect(call.token()).toBe(saved[0]);
  });

  // A probe: the login checked liveness at the cached chain time (just before not_after) and built the
  // claims at the clock (just after it): 200 with iat = exp = session_exp, and a dead session stored.
  it('a login just past not_after, while the chain time read just before it is cached, is refused as not live', async () => {
    const notAfterMs = (Math.floor(clock.nowMs() / 1000) + 60) * 1000;
    clock.set(notAfterMs - 400);
    const key = newKey();
    const minted = await mintPassport(app, {
      owner: key,
      metadata: { not_after: new Date(notAfterMs).toISOString() },
    });
    const before = await login(app.baseUrl, { identifier: minted.tokenId, key });
    expect(before.status).toBe(200);
    const openBefore = await sessions.countOpen(clock.nowMs());
    clock.set(notAfterMs + 300);
    const after = await login(app.baseUrl, { identifier: minted.tokenId, key });
    expectErrorEnvelope(
      { status: after.status, headers: after.headers, body: after.body },
      'PASSPORT_NOT_LIVE',
    );
    clock.set(notAfterMs - 400);
    expect(await sessions.countOpen(clock.nowMs())).toBe(openBefore);
  });

  it('a revoked passport: its token is refused within seconds, its session closed, and no renewal is issued', async () => {
    const { jwt, tokenId } = await mintAndLogin(app);
    const claims = claimsOf(jwt);
    at(claims, 3000);
    await updateLedgerFile(ledgerFileOf(app), (doc) => ({
      ...doc,
      passports: doc.passports.map((p) => (p.token_id === tokenId ? { ...p, revoked: true } : p)),
    }));
    // The chain cache keeps a found passport for at most 5 s.
    await new Promise((resolve) => setTimeout(resolve, 5200));
    const res = await nonce(jwt);
    expectErrorEnvelope(res, 'INVALIDATED_TOKEN');
    expect(res.body.error.details).toMatchObject({
      reason: 'error_checking_session',
      cause: 'passport_revoked',
    });
    expect(res.headers.get('new-token')).toBeNull();
    await expect(sessions.get(claims.session_id)).resolves.toMatchObject({ closeReason: 'passport_revoked' });
  });
});

// Found by a review: with the server's own passport revoked, login refused (503), but renewal still
// signed fresh tokens naming it for every holder in its last 20 %.
describe('renewal while the server passport is unusable', () => {
  let app: TestApp;
  let clock: FixedClock;
  beforeAll(async () => {
    clock = new FixedClock(Math.floor(Date.now() / 1000) * 1000);
    app = await startTestApp({ STORE: 'memory' }, { clock });
  });
  afterAll(() => app.close());

  // A later probe: tokens signed with the revoked server passport's key (which may have leaked) went on
  // working; now no token is honoured while it is revoked, and the sessions work again once it is not.
  it('honours no token and issues no New-Token while the server passport is revoked, and both again once it is not', async () => {
    const { jwt } = await mintAndLogin(app);
    const leaving = await mintAndLogin(app);
    const claims = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()) as { iat: number };
    clock.set((claims.iat + 3000) * 1000); // in the token's last 20 %
    const serverTokenId = serverIdentityOf(app).tokenId;
    const setRevoked = (revoked: boolean) =>
      updateLedgerFile(ledgerFileOf(app), (doc) => ({
        ...doc,
        passports: doc.passports.map((p) => (p.token_id === serverTokenId ? { ...p, revoked } : p)),
      }));
    await setRevoked(true);
    await new Promise((resolve) => setTimeout(resolve, 5200)); // the chain cache's 5 s
    const held = await fetch(`${app.baseUrl}/api/holanonce16ts`, { headers: bearer(jwt) });
    const heldBody = (await held.json()) as { error: { code: string; details: unknown } };
    expect([held.status, heldBody.error.code, held.headers.get('new-token')]).toEqual([
      503,
      'SERVICE_UNAVAILABLE',
      null,
    ]);
    expect(heldBody.error.details).toEqual({ reason: 'server_passport_revoked' });
    // A logout is still allowed (closing a session never depends on the server passport).
    const logout = await fetch(`${app.baseUrl}/api/logout`, { method: 'POST', headers: bearer(leaving.jwt) });
    expect(logout.status).toBe(200);
    await setRevoked(false);
    await new Promise((resolve) => setTimeout(resolve, 5200));
    const renewed = await fetch(`${app.baseUrl}/api/holanonce16ts`, { headers: bearer(jwt) });
    expect(renewed.status).toBe(200);
    expect(renewed.headers.get('new-token')).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  }, 20_000);
});

describe('a passport transferred on chain', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
  });
  afterAll(() => app.close());

  // Found by a probe (CHAIN=near): after a transfer the old owner's token kept working until session_exp,
  // while its new logins and lines were already refused.
  it("ends the old owner's session within the chain cache's 5 s: 401 passport_transferred", async () => {
    const { jwt, tokenId } = await mintAndLogin(app);
    const me = () => fetch(`${app.baseUrl}/api/holanonce16ts`, { headers: bearer(jwt) });
    expect((await me()).status).toBe(200);
    await updateLedgerFile(ledgerFileOf(app), (doc) => ({
      ...doc,
      passports: doc.passports.map((p) =>
        p.token_id === tokenId ? { ...p, owner_id: newKey().accountId } : p,
      ),
    }));
    await new Promise((resolve) => setTimeout(resolve, 5200));
    const res = await me();
    const body = (await res.json()) as { error: { code: string; details: Record<string, unknown> } };
    expect([res.status, body.error.code, body.error.details.cause]).toEqual([
      401,
      'INVALIDATED_TOKEN',
      'passport_transferred',
    ]);
    // Closed, not only refused: the session stays ended if the passport came back.
    expect((await me()).status).toBe(401);
  }, 15_000);
});

describe('JWT_RENEWAL=off and SESSION_TTL_SECONDS', () => {
  let app: TestApp;
  let clock: FixedClock;
  beforeAll(async () => {
    clock = new FixedClock(Math.floor(Date.now() / 1000) * 1000);
    app = await startTestApp({ JWT_RENEWAL: 'off', SESSION_TTL_SECONDS: '600' }, { clock });
  });
  afterAll(() => app.close());

  it('a short session caps the token; no New-Token is ever sent', async () => {
    const { jwt } = await mintAndLogin(app);
    const claims = claimsOf(jwt);
    expect(claims).toMatchObject({ exp: claims.iat + 600, session_exp: claims.iat + 600 });
    clock.set((claims.iat + 590) * 1000);
    const res = await fetch(`${app.baseUrl}/api/holanonce16ts`, { headers: bearer(jwt) });
    expect(res.status).toBe(200);
    expect(res.headers.get('new-token')).toBeNull();
  });
});
