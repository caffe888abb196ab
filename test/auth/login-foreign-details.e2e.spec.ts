/**
 * A same-family passport that names another API (`subjectuniqueidentifier_url`) is refused with
 * `LOGIN_MODE_POLICY_REJECTED_FOREIGN_BY_<MODE>`; the answer must say why, so that the holder can act.
 * Found by a probe as an AI agent: a passport minted with `--api http://127.0.0.1:<port>` for a server
 * whose public URL is `http://localhost:<port>` (the same server) got only "The login mode of this
 * server rejects this passport." and no details, and the served troubleshooting guide blames "another
 * family".
 */
import { login, mintPassport, newKey } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

it('the FOREIGN refusal names the API the passport was issued for and this API', async () => {
  const key = newKey();
  const home = 'https://other.example.test';
  const { tokenId } = await mintPassport(app, {
    owner: key,
    metadata: { subjectuniqueidentifier_url: home },
  });
  const res = await login(app.baseUrl, { identifier: tokenId, key });
  expect(res.status).toBe(401);
  expect(res.body.error.code).toBe('LOGIN_MODE_POLICY_REJECTED_FOREIGN_BY_PARTNER');
  const details = JSON.stringify(res.body.error.details);
  expect(details).toContain(home);
  expect(details).toContain(new URL(app.baseUrl).host);
});
