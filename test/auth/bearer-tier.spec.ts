/**
 * The JWT and privileged tiers end to end: every way a bearer token is refused (with its exact
 * code, reason and cause), logout, the per-passport rate limit, the HOLA nonce, the caller's
 * identity, and the privileged session and metrics endpoints.
 */
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, importJWK } from 'jose';
import { signFamilyMetadata } from '@passport/core';
import { updateLedgerFile } from '@passport/adapters/ledger';
import { contractClient } from '../support/contract-fetch.js';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import {
  bearer,
  familyRootSigner,
  fetchChallenge,
  ledgerFileOf,
  mintAndLogin,
  newKey,
  signLogin,
} from '../support/passports.js';
import { histogramSeries, parsePrometheusText } from '../support/prometheus-text.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const ADMIN_ROUTES = JSON.stringify({
  entities: {
    methods: {
      '/api/sessions': '60',
      '/api/sessions/list_all': '60',
      '/api/sessions/cleanup': '10',
      '/api/sessions/revoke': '10',
      '/api/metrics': '60',
    },
  },
});

/** The fields of a JSON log line the assertions read. */
interface LogLine {
  readonly audit?: string;
  readonly requestId?: string;
  readonly [field: string]: unknown;
}

describe('JWT and privileged tiers', () => {
  const logLines: LogLine[] = [];
  const auditLines = (audit: string) => logLines.filter((line) => line.audit === audit);
  let app: TestApp;
  let request: ReturnType<typeof contractClient>;
  let user: { tokenId: string; jwt: string };

  beforeAll(async () => {
    app = await startTestApp(
      { LOG_LEVEL: 'info' },
      { logDestination: { write: (line: string) => void logLines.push(JSON.parse(line) as LogLine) } },
    );
    request = contractClient(app.baseUrl);
    user = await mintAndLogin(app);
  });
  afterAll(() => app.close());

  const get = (path: string, headers: Record<string, string> = {}) => request(path, { headers });

  describe('bearer validation (401)', () => {
    it('no Authorization header → MISSING_TOKEN', async () => {
      const res = await get('/api/holanonce16ts');
      expectErrorEnvelope(res, 'MISSING_TOKEN');
    });

    // Found by a probe: no 401 named the scheme it wanted (RFC 9110 §15.5.2; RFC 6750 §3.1).
    it('every 401 carries WWW-Authenticate: Bearer, with error="invalid_token" when a token was refused', async () => {
      const missing = await get('/api/me/identity');
      expect(missing.status).toBe(401);
      expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="passport"');
      const refused = await get('/api/me/identity', { authorization: 'Bearer not-a-jwt' });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="passport", error="invalid_token"');
      // Another scheme (or a bare "Bearer") presented no bearer token to refuse (a probe).
      for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer'])
        expect((await get('/api/me/identity', { authorization })).headers.get('www-authenticate')).toBe(
          'Bearer realm="passport"',
        );
      // A refused login signature is no verdict on a token the request happens to carry.
      const challenge = await fetchChallenge(app.baseUrl);
      const refusedLogin = await fetch(`${app.baseUrl}/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${user.jwt}` },
        body: JSON.stringify({
          passportid: user.tokenId,
          timestamp_iso: challenge.timestamp_iso,
          // Signed by a stranger's key.
          passportid_base64url_signature: signLogin(newKey(), user.tokenId, challenge.timestamp_iso),
        }),
      });
      expect(refusedLogin.status).toBe(401);
      expect(refusedLogin.headers.get('www-authenticate')).toBe('Bearer realm="passport"');
      const allowed = await get('/api/me/identity', bearer(user.jwt));
      expect(allowed.status).toBe(200);
      expect(allowed.headers.get('www-authenticate')).toBeNull();
    });

    it.each([
      ['garbage', 'Bearer not-a-jwt', 'invalid_jwt_format'],
      ['another scheme', 'Basic dXNlcjpwYXNz', 'invalid_jwt_format'],
      ['a redacted token', 'Bearer eyJhbGciOiJFZERTQSJ9.[REDACTED].xxx', 'invalid_jwt_format'],
    ])('%s → INVALIDATED_TOKEN %s', async (_label, header, reason) => {
      const res = await get('/api/holanonce16ts', { authorization: header });
      expectErrorEnvelope(res, 'INVALIDATED_TOKEN');
      expect(res.body.error.details.reason).toBe(reason);
    });

    it('a truncated or tampered token → INVALIDATED_TOKEN error_checking_session', async () => {
      const truncated = await get('/api/holanonce16ts', bearer(user.jwt.slice(0, -12)));
      expectErrorEnvelope(truncated, 'INVALIDATED_TOKEN');
      expect(truncated.body.error.details).toMatchObject({
        reason: 'error_checking_session',
        cause: 'bad_signature',
      });
      const [h, p, s] = user.jwt.split('.');
      const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
      const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 86400 })).toString('base64url')}.${s}`;
      const tampered = await get('/api/holanonce16ts', bearer(forged));
      expect(tampered.body.error.details).toMatchObject({
        reason: 'error_checking_session',
        cause: 'bad_signature',
      });
    });

    it('a token signed by another key, and alg none → refused', async () => {
      const claims = JSON.parse(Buffer.from(user.jwt.split('.')[1], 'base64url').toString());
      const { privateKey } = generateKeyPairSync('ed25519');
      const jwk = privateKey.export({ format: 'jwk' });
      const key = await importJWK({ ...jwk, alg: 'EdDSA' } as never, 'EdDSA');
      const stranger = await new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' }).sign(key);
      const other = await get('/api/holanonce16ts', bearer(stranger));
      expect(other.body.error.details).toMatchObject({
        reason: 'error_checking_session',
        cause: 'bad_signature',
      });
      const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${user.jwt.split('.')[1]}.`;
      const unsigned = await get('/api/holanonce16ts', bearer(none));
      expectErrorEnvelope(unsigned, 'INVALIDATED_TOKEN');
      expect(unsigned.body.error.details).toMatchObject({
        reason: 'error_checking_session',
        cause: 'wrong_algorithm',
      });
    });

    it('a non-JSON body is refused with 415 before authentication', async () => {
      const res = await request('/api/logout', {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'hello',
      });
      expectErrorEnvelope(res, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('only the Authorization header counts (no query string, no cookie)', async () => {
      const res = await request(`/api/holanonce16ts?access_token=${user.jwt}`, {
        headers: { cookie: `jwt=${user.jwt}` },
      });
      expectErrorEnvelope(res, 'MISSING_TOKEN');
    });

    it('an expired token → INVALIDATED_TOKEN (expired)', async () => {
      const shortLived = await mintAndLogin(app, { metadata: { jwt_duration: '1' } });
      await new Promise((resolve) => setTimeout(resolve, 2100));
      const res = await get('/api/holanonce16ts', bearer(shortLived.jwt));
      expect(res.body.error.details).toMatchObject({ reason: 'error_checking_session', cause: 'expired' });
    });
  });

  describe('GET /api/holanonce16ts', () => {
    it('issues 16 random bytes as 32 uppercase hex and an ISO timestamp, fresh each time', async () => {
      const a = await get('/api/holanonce16ts', bearer(user.jwt));
      const b = await get('/api/holanonce16ts', bearer(user.jwt));
      expect(a.status).toBe(200);
      expect(Object.keys(a.body).sort()).toEqual([
        'algorithm',
        'length',
        'noncetsHex',
        'requestId',
        'timestamp',
      ]);
      expect(a.body).toMatchObject({ length: 16, algorithm: 'randomBytes(16)_hex' });
      expect(a.body.noncetsHex).toMatch(/^[0-9A-F]{32}$/);
      expect(new Date(a.body.timestamp).toISOString()).toBe(a.body.timestamp);
      expect(a.body.noncetsHex).not.toBe(b.body.noncetsHex);
    });
  });

  describe('GET /api/me/identity', () => {
    it("returns the caller's passport decoded", async () => {
      const res = await get('/api/me/identity', bearer(user.jwt));
      expect(res.status).toBe(200);
      expect(res.body.tokenId).toBe(user.tokenId);
      expect(res.body.face).toMatchObject({ checksumValid: true });
      expect(res.body.dn).toMatchObject({ displayName: 'Test Agent', creature: 'robot' });
      expect(res.body.notAfter).toBeNull();
      expect(res.body.metadata).toMatchObject({
        serviceprovider_signature: expect.any(String),
        max_requests: '0',
      });
      // JSON, with the bytes JSON.stringify gives for the body (the request id last), request after request.
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.text).toBe(JSON.stringify(res.body));
      expect(Object.keys(res.body).at(-1)).toBe('requestId');
      const again = await get('/api/me/identity', bearer(user.jwt));
      expect(again.text).toBe(JSON.stringify({ ...res.body, requestId: again.body.requestId }));
      expect(again.body.requestId).not.toBe(res.body.requestId);
    });

    it('a passport that left the chain: its token is refused by the JWT tier (passport_not_found)', async () => {
      const gone = await mintAndLogin(app);
      await updateLedgerFile(ledgerFileOf(app), (doc) => ({
        ...doc,
        passports: doc.passports.filter((p) => p.token_id !== gone.tokenId),
      }));
      // The chain cache keeps a found passport for at most 5 s.
      await new Promise((resolve) => setTimeout(resolve, 5200));
      const res = await get('/api/me/identity', bearer(gone.jwt));
      expectErrorEnvelope(res, 'INVALIDATED_TOKEN');
      expect(res.body.error.details).toMatchObject({
        reason: 'error_checking_session',
        cause: 'passport_not_found',
      });
    });
  });

  describe('per-passport rate limit', () => {
    it('max_requests per maxrq_window: 429 RATE_LIMIT_EXCEEDED with details and Retry-After', async () => {
      const limited = await mintAndLogin(app, { metadata: { max_requests: '3', maxrq_window: '60' } });
      for (let i = 0; i < 3; i++)
        expect((await get('/api/holanonce16ts', bearer(limited.jwt))).status).toBe(200);
      const res = await get('/api/holanonce16ts', bearer(limited.jwt));
      expectErrorEnvelope(res, 'RATE_LIMIT_EXCEEDED');
      expect(res.body.error.details).toMatchObject({ limit: 3, windowSeconds: 60, scope: 'passport' });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // Another passport is not affected.
      expect((await get('/api/holanonce16ts', bearer(user.jwt))).status).toBe(200);
    });

    // Found by a probe: a max_requests that is no whole number ("-1", "1.5") meant no limit at all.
    it.each([['-1'], ['1.5'], ['many']])(
      'a max_requests of %j fails closed as a limit of 1',
      async (maxRequests) => {
        const odd = await mintAndLogin(app, { metadata: { max_requests: maxRequests, maxrq_window: '-60' } });
        expect((await get('/api/holanonce16ts', bearer(odd.jwt))).status).toBe(200);
        const res = await get('/api/holanonce16ts', bearer(odd.jwt));
        expectErrorEnvelope(res, 'RATE_LIMIT_EXCEEDED');
        expect(res.body.error.details).toMatchObject({ limit: 1, windowSeconds: 60, scope: 'passport' });
      },
    );

    it('a max_requests of "0" is unlimited', async () => {
      const free = await mintAndLogin(app, { metadata: { max_requests: '0' } });
      for (let i = 0; i < 5; i++)
        expect((await get('/api/holanonce16ts', bearer(free.jwt))).status).toBe(200);
    });
  });

  describe('POST /api/logout', () => {
    it('closes the session: the token is refused afterwards', async () => {
      const session = await mintAndLogin(app);
      const res = await request('/api/logout', { method: 'POST', headers: bearer(session.jwt) });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ sessionClosed: true, sessionId: expect.stringMatching(/^sess_/) });
      const after = await get('/api/holanonce16ts', bearer(session.jwt));
      expectErrorEnvelope(after, 'INVALIDATED_TOKEN');
      expect(after.body.error.details).toMatchObject({
        reason: 'error_checking_session',
        cause: 'session_closed',
      });
      expectErrorEnvelope(
        await request('/api/logout', { method: 'POST', headers: bearer(session.jwt) }),
        'INVALIDATED_TOKEN',
      );
    });
  });

  describe('privileged tier', () => {
    let admin: { tokenId: string; jwt: string };
    beforeAll(async () => {
      admin = await mintAndLogin(app, { metadata: { permissioned_routes: ADMIN_ROUTES } });
    });

    it('a plain passport → 403 PERMISSION_DENIED on every privileged route', async () => {
      for (const [method, path] of [
        ['GET', '/api/sessions'],
        ['GET', '/api/sessions/list_all'],
        ['POST', '/api/sessions/cleanup'],
        ['POST', '/api/sessions/revoke'],
        ['GET', '/api/metrics'],
      ]) {
        const res = await request(path, {
          method,
          headers: { ...bearer(user.jwt), 'content-type': 'application/json' },
          body: method === 'POST' ? '{}' : undefined,
        });
        const refused = expectErrorEnvelope(res, 'PERMISSION_DENIED');
        // What grants the route, in details.hint (a new admin's walkthrough: the bare refusal did not say);
        // the alias list_all is granted by /api/sessions's key, so the hint names that one.
        const key = path === '/api/sessions/list_all' ? '/api/sessions' : path;
        expect(refused.error.details).toEqual({
          route: path,
          hint: `a passport of this server's own family whose permissioned_routes names "${key}" ({"entities":{"methods":{"${key}":"<rate>"}}}; passport mint --admin-route ${key}), logged in on this server`,
        });
        // Each refused attempt is in the audit trail, found by its request id.
        expect(auditLines('privilege_denied')).toContainEqual(
          expect.objectContaining({ tokenId: user.tokenId, requestId: refused.requestId }),
        );
      }
      expectErrorEnvelope(await get('/api/metrics'), 'MISSING_TOKEN');
    });

    // Found by a probe: a privilege withdrawn on chain stayed with the open session until session_exp,
    // and a grant of /api/sessions did not open its alias list_all.
    it('a privilege withdrawn on chain ends for the open session once the chain cache has it; the alias follows its main route', async () => {
      const demoted = await mintAndLogin(app, {
        metadata: {
          permissioned_routes: JSON.stringify({ entities: { methods: { '/api/sessions': '1' } } }),
        },
      });
      expect((await get('/api/sessions', bearer(demoted.jwt))).status).toBe(200);
      expect((await get('/api/sessions/list_all', bearer(demoted.jwt))).status).toBe(200);
      await updateLedgerFile(ledgerFileOf(app), (doc) => ({
        ...doc,
        passports: doc.passports.map((p) =>
          p.token_id === demoted.tokenId ? { ...p, metadata: { ...p.metadata, permissioned_routes: '' } } : p,
        ),
      }));
      // The chain cache keeps a found passport for at most 5 s.
      await new Promise((resolve) => setTimeout(resolve, 5200));
      expectErrorEnvelope(await get('/api/sessions', bearer(demoted.jwt)), 'PERMISSION_DENIED');
      expectErrorEnvelope(await get('/api/sessions/list_all', bearer(demoted.jwt)), 'PERMISSION_DENIED');
    });

    // From a mutation probe: a privilege compared by path prefix, and one read from the token's claim
    // instead of the chain, passed every test (the withdrawal above also broke the family signature,
    // which refused the passport whatever the routes said).
    it('a privilege is an exact path: /api/sessions opens neither revoke nor cleanup', async () => {
      const lister = await mintAndLogin(app, {
        metadata: {
          permissioned_routes: JSON.stringify({ entities: { methods: { '/api/sessions': '1' } } }),
        },
      });
      expect((await get('/api/sessions', bearer(lister.jwt))).status).toBe(200);
      for (const path of ['/api/sessions/revoke', '/api/sessions/cleanup'])
        expectErrorEnvelope(
          await request(path, {
            method: 'POST',
            headers: { ...bearer(lister.jwt), 'content-type': 'application/json' },
            body: JSON.stringify({ sessionId: 'sess_x' }),
          }),
          'PERMISSION_DENIED',
        );
    });

    it('a privilege withdrawn by a properly re-signed passport ends for the open session too', async () => {
      const demoted = await mintAndLogin(app, {
        metadata: {
          permissioned_routes: JSON.stringify({ entities: { methods: { '/api/sessions': '1' } } }),
        },
      });
      expect((await get('/api/sessions', bearer(demoted.jwt))).status).toBe(200);
      const root = await familyRootSigner(app);
      await updateLedgerFile(ledgerFileOf(app), (doc) => ({
        ...doc,
        passports: doc.passports.map((p) => {
          if (p.token_id !== demoted.tokenId) return p;
          const { serviceprovider_signature: _old, ...rest } = p.metadata as Record<string, string>;
          const metadata = { ...rest, permissioned_routes: '' };
          return {
            ...p,
            metadata: {
              ...metadata,
              serviceprovider_signature: signFamilyMetadata(metadata, p.token_id, root),
            },
          };
        }),
      }));
      await new Promise((resolve) => setTimeout(resolve, 5200));
      // Still a member of the family (its identity reads fine), but no longer privileged.
      expect((await get('/api/me/identity', bearer(demoted.jwt))).status).toBe(200);
      expectErrorEnvelope(await get('/api/sessions', bearer(demoted.jwt)), 'PERMISSION_DENIED');
    });

    it('a route missing from permissioned_routes stays closed to an otherwise privileged passport', async () => {
      const partial = await mintAndLogin(app, {
        metadata: { permissioned_routes: JSON.stringify({ entities: { methods: { '/api/metrics': '1' } } }) },
      });
      expect((await get('/api/metrics', bearer(partial.jwt))).status).toBe(200);
      expectErrorEnvelope(await get('/api/sessions', bearer(partial.jwt)), 'PERMISSION_DENIED');
    });

    it('lists sessions newest first with paging, and rejects bad paging', async () => {
      const newest = await mintAndLogin(app);
      const page = await get('/api/sessions?limit=1', bearer(admin.jwt));
      expect(page.status).toBe(200);
      expect(page.body.sessions).toHaveLength(1);
      expect(page.body.sessions[0]).toMatchObject({ tokenId: newest.tokenId, status: 'open' });
      expect(page.body.total).toBeGreaterThan(1);
      expect(page.body.nextCursor).toBe('1');
      const next = await get(
        `/api/sessions/list_all?limit=1&cursor=${page.body.nextCursor}`,
        bearer(admin.jwt),
      );
      expect(next.body.sessions[0].sessionId).not.toBe(page.body.sessions[0].sessionId);
      for (const query of ['limit=0', 'limit=101', 'limit=abc', 'cursor=-1']) {
        expectErrorEnvelope(
          await get(`/api/sessions?${query}`, bearer(admin.jwt)),
          'INVALID_QUERY_PARAMETER',
        );
      }
      // A filter the list does not have is refused, not ignored: a script revoking what it believes it
      // filtered would end every holder's session.
      for (const [query, parameter] of [
        [`tokenId=${newest.tokenId}`, 'tokenId'],
        ['limit=1&status=closed', 'status'],
      ]) {
        const refused = await get(`/api/sessions?${query}`, bearer(admin.jwt));
        expectErrorEnvelope(refused, 'INVALID_QUERY_PARAMETER');
        expect(refused.body.error.details.parameter).toBe(parameter);
      }
      // Holders' sessions are never stored by a cache.
      expect(page.headers.get('cache-control')).toBe('no-store');
    });

    it('revokes a session (its token is refused at once) and 404s an unknown one', async () => {
      const victim = await mintAndLogin(app);
      const sessionId = JSON.parse(Buffer.from(victim.jwt.split('.')[1], 'base64url').toString()).session_id;
      const post = (body: unknown) =>
        request('/api/sessions/revoke', {
          method: 'POST',
          headers: { ...bearer(admin.jwt), 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      // Found by a probe: NUL, ESC, newlines, bidi overrides and lone surrogates were stored as the reason.
      for (const reason of [
        'a\u0000b',
        'x\u001b[31mred',
        'two\nlines',
        'evil\u202etxt',
        'half \ud800',
        'sep\u2028',
        'mark\u200e',
        'zero\u200bwidth',
      ]) {
        const refused = await post({ sessionId, reason });
        expectErrorEnvelope(refused, 'VALIDATION_FAILED');
        expect(refused.body.error.details).toMatchObject({ field: 'reason' });
      }
      expect((await get('/api/holanonce16ts', bearer(victim.jwt))).status).toBe(200);
      const res = await post({ sessionId, reason: 'compromised' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ sessionId, revoked: true, reason: 'compromised' });
      // The audit line: who closed whose session and why, with the request id as a field of its own.
      expect(auditLines('session_revoked')).toContainEqual(
        expect.objectContaining({
          sessionId,
          holderTokenId: victim.tokenId,
          reason: 'compromised',
          adminTokenId: admin.tokenId,
          requestId: res.body.requestId,
        }),
      );
      const refused = await get('/api/holanonce16ts', bearer(victim.jwt));
      expect(refused.body.error.details.cause).toBe('session_closed');
      // Found by a probe: the second answer named the request's default reason, not the one recorded.
      expect((await post({ sessionId })).body).toMatchObject({
        sessionId,
        revoked: false,
        reason: 'compromised',
      });
      const unknown = await post({ sessionId: 'sess_nobody_01ARZ3NDEKTSV4RRFFQ69G5FAV' });
      expectErrorEnvelope(unknown, 'SESSION_NOT_FOUND');
      expectErrorEnvelope(await post({}), 'VALIDATION_FAILED');
      expectErrorEnvelope(await post({ sessionId: 42 }), 'VALIDATION_FAILED');
      // Found by a probe: an unknown id with ESC and a newline in it came back as sent in the 404's
      // details, for an admin tool printing them; it is refused as the reason is.
      for (const unprintable of ['sess_\u001b[31mred', 'sess_two\nlines', 'sess_evil\u202etxt']) {
        const refused = await post({ sessionId: unprintable });
        expectErrorEnvelope(refused, 'VALIDATION_FAILED');
        expect(refused.body.error.details).toMatchObject({ field: 'sessionId' });
        expect(JSON.stringify(refused.body)).not.toContain(JSON.stringify(unprintable).slice(1, -1));
      }
    });

    it('cleans up closed and expired sessions', async () => {
      const res = await request('/api/sessions/cleanup', { method: 'POST', headers: bearer(admin.jwt) });
      expect(res.status).toBe(200);
      expect(res.body.removed).toBeGreaterThanOrEqual(1);
      expect(auditLines('sessions_cleaned_up')).toContainEqual(
        expect.objectContaining({
          removed: res.body.removed,
          adminTokenId: admin.tokenId,
          requestId: res.body.requestId,
        }),
      );
      const listed = await get('/api/sessions?limit=100', bearer(admin.jwt));
      expect(listed.body.sessions.every((s: { status: string }) => s.status === 'open')).toBe(true);
    });

    it('metrics: JSON figures, and the same in Prometheus text for Accept: text/plain', async () => {
      const json = await get('/api/metrics', bearer(admin.jwt));
      expect(json.status).toBe(200);
      expect(json.body.requests.total).toBeGreaterThan(10);
      expect(json.body.sessions.active).toBeGreaterThanOrEqual(2);
      expect(json.body.chain.reads).toBeGreaterThan(0);
      expect(json.body.routes['/api/holanonce16ts'].count).toBeGreaterThan(3);
      expect(json.body.routes['/api/holanonce16ts'].p99Ms).toBeGreaterThanOrEqual(
        json.body.routes['/api/holanonce16ts'].p50Ms,
      );
      const text = await request('/api/metrics', { headers: { ...bearer(admin.jwt), accept: 'text/plain' } });
      expect(text.status).toBe(200);
      // The body depends on Accept, and neither form is stored by a cache.
      for (const answer of [json, text]) {
        expect(answer.headers.get('cache-control')).toBe('no-store');
        expect(answer.headers.get('vary')).toMatch(/\baccept\b/i);
      }
      expect(text.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(text.text).toMatch(/^# HELP passport_requests_total /m);
      const histogram = parsePrometheusText(text.text).get('passport_http_request_duration_seconds')!;
      const nonce = histogramSeries(histogram).find(
        (s) =>
          s.labels.route === '/api/holanonce16ts' && s.labels.method === 'GET' && s.labels.status === '200',
      );
      expect(nonce!.count).toBeGreaterThan(3);
    });
  });
});
