/**
 * Another connection holding the SQLite write lock (an operator's shell inside BEGIN IMMEDIATE, a process
 * paused in a commit) stalls no request that does not write: the writes wait on timers with the event loop
 * free, and are answered once the lock is let go. Before, each write attempt waited in `busy_timeout` on
 * the event loop, and a probe saw `GET /api/login/timestamp` wait 4–5 s. Over real HTTP against the real
 * app (STORE=sqlite, the default).
 */
import { SqliteDatabase } from '@passport/adapters/sqlite';
import { bearer, mintAndLogin } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** How long the lock is held: well within the app's 5 s busy timeout. */
const HOLD_MS = 2500;

describe('the SQLite write lock held by another connection', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'sqlite' });
  });
  afterAll(() => app.close());

  it('reads are answered at once while a logout waits for the lock; the logout is answered once it is let go', async () => {
    const session = await mintAndLogin(app);
    const locker = SqliteDatabase.openInDataDir(app.dataDir);
    try {
      locker.statement('BEGIN IMMEDIATE').run();
      const started = performance.now();
      const releasing = setTimeout(() => locker.statement('COMMIT').run(), HOLD_MS);
      const logout = fetch(`${app.baseUrl}/api/logout`, {
        method: 'POST',
        headers: bearer(session.jwt),
      }).then((res) => ({ status: res.status, at: performance.now() - started }));
      // The logout is under way (its write waits) before the read is asked.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const read = await fetch(`${app.baseUrl}/api/login/timestamp`);
      const readAt = performance.now() - started;
      expect(read.status).toBe(200);
      // Answered while the lock was still held: a write waiting on the event loop held it until then.
      expect(locker.inTransaction).toBe(true);
      expect(readAt).toBeLessThan(HOLD_MS);
      const answered = await logout;
      clearTimeout(releasing);
      expect(answered.status).toBe(200);
      expect(answered.at).toBeGreaterThanOrEqual(HOLD_MS - 1);
      // Written: the token no longer works.
      const after = await fetch(`${app.baseUrl}/api/holanonce16ts`, { headers: bearer(session.jwt) });
      expect(after.status).toBe(401);
    } finally {
      if (locker.inTransaction) locker.statement('ROLLBACK').run();
      locker.close();
    }
  });
});
