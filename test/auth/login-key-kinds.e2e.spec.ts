/**
 * A hostile holder's probe: the login single-use key is `login|<identifier in lower case>|<timestamp>`,
 * without the identifier's kind. A named account may be called by any 12 lowercase letters, so an account
 * named after another holder's token id shares that passport's keys: its owner logs in by `accountid` at
 * each challenge second (and at the 30 s ahead a challenge may be), and the passport's own `passportid`
 * logins are refused `challenge_already_used` for those seconds. docs/protocol.md §3 promises one login
 * per challenge second *and identifier form* of each passport: two messages, two keys.
 */
import {
  addNamedAccount,
  fetchChallenge,
  login,
  mintPassport,
  newKey,
  type LoginAttempt,
  type TestKey,
} from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('login single-use keys of the two identifier kinds (hostile holder)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  /** A login by `accountid` (the account's own key) at the challenge given. */
  const loginByAccount = (account: string, key: TestKey, challenge: LoginAttempt['challenge']) =>
    login(app.baseUrl, { identifier: account, kind: 'accountid', key, challenge });

  it("an account named after another passport's token id does not use up that passport's challenges", async () => {
    const victimKey = newKey();
    const victim = await mintPassport(app, { owner: victimKey });
    // The attacker's named account carries the victim's token id as its name, and owns a passport.
    const attackerKey = newKey();
    await addNamedAccount(app, victim.tokenId, [attackerKey]);
    await mintPassport(app, { owner: victim.tokenId });

    const challenge = await fetchChallenge(app.baseUrl);
    const attacker = await loginByAccount(victim.tokenId, attackerKey, challenge);
    expect(attacker.status).toBe(200);
    expect(attacker.body.passportid).not.toBe(victim.tokenId);

    const own = await login(app.baseUrl, { identifier: victim.tokenId, key: victimKey, challenge });
    expect(own.body?.error?.details?.reason).toBeUndefined();
    expect(own.status).toBe(200);
    expect(own.body.passportid).toBe(victim.tokenId);
  });

  it("the reverse: the passport's own logins do not use up the account's challenges", async () => {
    const victimKey = newKey();
    const victim = await mintPassport(app, { owner: victimKey });
    const ownerKey = newKey();
    await addNamedAccount(app, victim.tokenId, [ownerKey]);
    const owned = await mintPassport(app, { owner: victim.tokenId });

    const challenge = await fetchChallenge(app.baseUrl);
    const byPassport = await login(app.baseUrl, { identifier: victim.tokenId, key: victimKey, challenge });
    expect(byPassport.status).toBe(200);

    const byAccount = await loginByAccount(victim.tokenId, ownerKey, challenge);
    expect(byAccount.body?.error?.details?.reason).toBeUndefined();
    expect(byAccount.status).toBe(200);
    expect(byAccount.body.passportid).toBe(owned.tokenId);
    // Each form still once per challenge second.
    const again = await loginByAccount(victim.tokenId, ownerKey, challenge);
    expect(again.status).toBe(401);
    expect(again.body.error.details.reason).toBe('challenge_already_used');
  });
});
