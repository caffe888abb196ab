/**
 * The logout `reason` kept with the closed session (apps/api/src/login/login.controller.ts, the
 * LogoutRequestDto description): 1-100 characters of printable ASCII (0x20-0x7E) are kept as
 * `logout: <reason>`; anything else is not kept, and the logout still happens. The bounds themselves:
 * exactly 100 characters, a lone space and `~` are kept; DEL (0x7F, not printable) is not.
 */
import { type SessionStore } from '@passport/core/ports';
import { SESSION_STORE } from '../../apps/api/src/platform/infrastructure/di-tokens.js';
import { contractClient } from '../support/contract-fetch.js';
import { bearer, mintAndLogin } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const sessionOf = (jwt: string): string =>
  JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8')).session_id;

describe('the logout reason at its bounds', () => {
  let app: TestApp;
  let request: ReturnType<typeof contractClient>;
  let sessions: SessionStore;

  beforeAll(async () => {
    app = await startTestApp({ STORE: 'sqlite' });
    request = contractClient(app.baseUrl);
    sessions = app.app.get<SessionStore>(SESSION_STORE);
  });
  afterAll(() => app.close());

  const logoutWith = async (reason: string): Promise<string> => {
    const { jwt } = await mintAndLogin(app);
    const res = await request('/api/logout', {
      method: 'POST',
      headers: { ...bearer(jwt), 'content-type': 'application/json' },
      body: JSON.stringify({ reason }),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ sessionClosed: true, message: 'Session closed.' });
    return sessionOf(jwt);
  };

  it.each([
    ['exactly 100 characters', 'y'.repeat(100)],
    ['a lone space', ' '],
    ['the last printable character', '~'],
  ])('%s is kept', async (_, reason) => {
    const sessionId = await logoutWith(reason);
    await expect(sessions.get(sessionId)).resolves.toMatchObject({ closeReason: `logout: ${reason}` });
  });

  it.each([
    ['DEL (0x7F)', 'bye\u007f'],
    ['the empty string', ''],
  ])('%s is not kept; the session is closed all the same', async (_, reason) => {
    const sessionId = await logoutWith(reason);
    await expect(sessions.get(sessionId)).resolves.toMatchObject({ closeReason: 'logout' });
  });
});
