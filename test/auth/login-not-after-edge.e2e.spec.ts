/**
 * A passport whose `not_after` falls in the second the server issues a token in (login.service.ts): the
 * chain still holds it live (liveness is judged at the chain's time), but a token issued at the server's
 * clock would expire at issue (exp = iat) and open a dead session, so the login is 401
 * PASSPORT_NOT_LIVE. A second earlier, the bound gives a token of one second (exp = iat + 1). Real app
 * over HTTP; the server's clock is the core's FixedClock, set a minute ahead of the ledger's chain time
 * (the system clock), as a server whose clock runs ahead of the chain's.
 */
import { FixedClock } from '@passport/core/testing';
import { login, mintPassport, newKey } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));

describe('not_after in the second of issue, live at chain time', () => {
  let app: TestApp;
  let clock: FixedClock;
  beforeAll(async () => {
    clock = new FixedClock(Date.now());
    app = await startTestApp({ STORE: 'memory' }, { clock });
  });
  afterAll(() => app.close());

  /** A passport live at chain time until `notAfterSecond`, and the server's clock at `atSecond`. */
  const passportUntil = async (notAfterSecond: number, atSecond: number) => {
    const key = newKey();
    const { tokenId } = await mintPassport(app, {
      owner: key,
      metadata: { not_after: new Date(notAfterSecond * 1000).toISOString() },
    });
    clock.set(atSecond * 1000);
    return login(app.baseUrl, { identifier: tokenId, key });
  };

  it('issued in the second of not_after: 401 PASSPORT_NOT_LIVE, no token that expires at issue', async () => {
    const notAfter = Math.floor(Date.now() / 1000) + 60;
    const refused = await passportUntil(notAfter, notAfter);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({
      code: 'PASSPORT_NOT_LIVE',
      details: { failureReason: 'PASSPORT_NOT_LIVE' },
    });
  });

  it('issued a second before: a token of one second', async () => {
    const notAfter = Math.floor(Date.now() / 1000) + 60;
    const ok = await passportUntil(notAfter, notAfter - 1);
    expect(ok.status).toBe(200);
    const claims = claimsOf(ok.body.jwt_token as string);
    expect([claims.iat, claims.exp, claims.session_exp]).toEqual([notAfter - 1, notAfter, notAfter]);
  });
});
