/**
 * The core's renewing fetch against the real app (STORE=memory, time driven by the core's FixedClock),
 * where a mutation probe found two behaviours its unit tests did not pin: concurrent requests at the
 * renewal point all receive the session's one renewal, which is taken (and handed to `onNewToken`)
 * once; and a `Request` given as input keeps its own headers beside the bearer.
 */
import { createRenewingFetch } from '@passport/core';
import { FixedClock } from '@passport/core/testing';
import { mintAndLogin } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const claimsOf = (jwt: string): Record<string, any> =>
  JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));

describe("the core's renewing fetch against the real app", () => {
  let app: TestApp;
  let clock: FixedClock;
  beforeAll(async () => {
    clock = new FixedClock(Math.floor(Date.now() / 1000) * 1000);
    app = await startTestApp({ STORE: 'memory' }, { clock });
  });
  afterAll(() => app.close());

  // Fails on mutant: a New-Token expiring no later than the current one (the same renewal, answered to
  // each concurrent request) was taken again, and `onNewToken` (the CLI's file write) ran once per answer.
  it('takes the renewal shared by concurrent requests once', async () => {
    const { jwt } = await mintAndLogin(app);
    const first = claimsOf(jwt);
    const saved: string[] = [];
    const call = createRenewingFetch({ token: jwt, onNewToken: (t) => void saved.push(t) });
    clock.set((first.iat + 3000) * 1000);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => call(`${app.baseUrl}/api/holanonce16ts`)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(5).fill(200));
    // Every answer carried the same renewal (the server's), and it was taken once.
    expect(new Set(answers.map((a) => a.headers.get('new-token'))).size).toBe(1);
    expect(saved).toEqual([answers[0].headers.get('new-token')]);
    expect(claimsOf(call.token())).toMatchObject({ session_id: first.session_id, exp: first.session_exp });
  });

  // Fails on mutant: the headers of a Request given as input were replaced by the bearer alone (its
  // content-type lost, the JSON body refused).
  it('keeps the headers of a Request beside the bearer', async () => {
    const { jwt, tokenId } = await mintAndLogin(app);
    const call = createRenewingFetch({ token: jwt });
    const request = new Request(`${app.baseUrl}/api/identity/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hola: `HOLA/MUNDO/${tokenId.toUpperCase()}/not-a-line` }),
    });
    const answer = await call(request);
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('HOLA_VALIDATION_FAILED');
  });
});
