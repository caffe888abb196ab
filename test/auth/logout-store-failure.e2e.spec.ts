/**
 * A logout whose write cannot be made: another connection holds the SQLite write lock past the app's 5 s
 * busy timeout. The logout is 500 SESSION_TERMINATION_FAILED (the catalogued error of the route, with the
 * error envelope), not a generic failure, and the session is not closed: the token still works once the
 * lock is let go, and a second logout closes it. Two logouts of one session let through together: one
 * closes it, the other answers 200 "Session was already closed." with sessionClosed false. Real app over HTTP, real SQLite file (STORE=sqlite).
 */
import { SqliteDatabase } from '@passport/adapters/sqlite';
import { contractClient } from '../support/contract-fetch.js';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import { bearer, mintAndLogin } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('a logout that cannot write its session', () => {
  let app: TestApp;
  let request: ReturnType<typeof contractClient>;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'sqlite' });
    request = contractClient(app.baseUrl);
  });
  afterAll(() => app.close());

  it('→ 500 SESSION_TERMINATION_FAILED, the session left open', async () => {
    const session = await mintAndLogin(app);
    const locker = SqliteDatabase.openInDataDir(app.dataDir);
    try {
      locker.statement('BEGIN IMMEDIATE').run();
      const refused = await request('/api/logout', { method: 'POST', headers: bearer(session.jwt) });
      expect(refused.status).toBe(500);
      expectErrorEnvelope(refused, 'SESSION_TERMINATION_FAILED');
      expect(refused.headers.get('new-token')).toBeNull();
      locker.statement('ROLLBACK').run();
    } finally {
      if (locker.inTransaction) locker.statement('ROLLBACK').run();
      locker.close();
    }
    const open = await request('/api/holanonce16ts', { headers: bearer(session.jwt) });
    expect(open.status).toBe(200);
    const out = await request('/api/logout', { method: 'POST', headers: bearer(session.jwt) });
    expect(out.status).toBe(200);
    expect(out.body).toMatchObject({ sessionClosed: true, message: 'Session closed.' });
  }, 20_000);

  it('two logouts of one session that both passed the guard: one closes it, the other says it was closed already', async () => {
    const session = await mintAndLogin(app);
    const locker = SqliteDatabase.openInDataDir(app.dataDir);
    let answers;
    try {
      locker.statement('BEGIN IMMEDIATE').run();
      // Both are read and let through while the lock is held (reads do not wait); their writes queue.
      const both = Promise.all(
        [0, 1].map(() => request('/api/logout', { method: 'POST', headers: bearer(session.jwt) })),
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      locker.statement('COMMIT').run();
      answers = await both;
    } finally {
      if (locker.inTransaction) locker.statement('ROLLBACK').run();
      locker.close();
    }
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    const bodies = answers
      .map((a) => a.body)
      .sort((a, b) => Number(b.sessionClosed) - Number(a.sessionClosed));
    expect(bodies[0]).toMatchObject({ sessionClosed: true, message: 'Session closed.' });
    expect(bodies[1]).toMatchObject({ sessionClosed: false, message: 'Session was already closed.' });
    for (const a of answers) expect(a.headers.get('new-token')).toEqual(expect.any(String));
  }, 20_000);
});
