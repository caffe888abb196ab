/**
 * `/health` reads what requests read (hostile probe finding): a ledger file that no longer parses and
 * corrupt pages of the SQLite replay records make it `degraded` with the reason, over real HTTP
 * against the real app, and a verification against the corrupt store is a 503 envelope, not a 500.
 */
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SqliteDatabase, SqliteReplayStore } from '@passport/adapters/sqlite';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import { ledgerFileOf, login, mintPassport, newKey } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { holaLine } from '../verify/hola-lines.js';

interface HealthBody {
  status: string;
  degraded: boolean;
  checks: Record<string, { status: string; reason?: string; problem?: string }>;
}

async function health(app: TestApp): Promise<HealthBody> {
  return (await (await fetch(`${app.baseUrl}/health`)).json()) as HealthBody;
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('health reports a ledger that no longer parses', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
  });
  afterAll(() => app.close());

  it('degraded with reason ledger_unparsable, healthy again once the file is repaired', async () => {
    expect((await health(app)).status).toBe('healthy');
    const file = ledgerFileOf(app);
    const { readFileSync } = await import('node:fs');
    const good = readFileSync(file, 'utf8');
    writeFileSync(file, '{"passports": [ truncated');
    await eventually(async () => (await health(app)).status === 'degraded');
    expect((await health(app)).checks.chain).toMatchObject({ status: 'fail', reason: 'ledger_unparsable' });
    writeFileSync(file, good.replace('"passports"', ' "passports"')); // same content, a new file identity
    await eventually(async () => (await health(app)).status === 'healthy');
  });
});

// Corrupt pages of the replay log met at a start: before 1.8.0 the start went on, health said
// `database unavailable` and every verify answered 503; now the start is refused, naming the file and the
// way out (a probe: health said healthy until the first verify, then a failure for a minute only). Damage
// met after a start stays in health (test/store/sqlite-damaged-log-start.spec.ts).
describe('a start on corrupt pages of the SQLite replay records', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'passport-corrupt-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is refused, naming the file and the way out', async () => {
    // A first run creates the development family and the database.
    const first = await startTestApp({ DATA_DIR: dataDir });
    const key = newKey();
    const { tokenId } = await mintPassport(first, { owner: key });
    await first.close();

    // Enough replay records to span many pages, then those pages overwritten (the row counts stay intact).
    const file = path.join(dataDir, 'passport.db');
    const db = SqliteDatabase.open(file);
    const replay = new SqliteReplayStore(db, { sweepIntervalMs: 0 });
    for (let i = 0; i < 3000; i++)
      await replay.recordIfAbsent(
        `${tokenId}|${i.toString(16).padStart(32, '0')}`,
        Date.now(),
        Date.now() + 86_400_000,
      );
    const pages = db
      .statement(
        "SELECT pageno FROM dbstat WHERE name IN ('replay_records', 'sqlite_autoindex_replay_records_1')",
      )
      .pluck()
      .all() as number[];
    replay.dispose();
    db.close();
    const raw = new Database(file);
    raw.pragma('wal_checkpoint(TRUNCATE)');
    const pageSize = raw.pragma('page_size', { simple: true }) as number;
    raw.close();
    const fd = openSync(file, 'r+');
    for (const page of pages) writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, (page - 1) * pageSize);
    closeSync(fd);

    await expect(startTestApp({ DATA_DIR: dataDir })).rejects.toThrow(
      `the SQLite database ${file} is damaged (database disk image is malformed, SQLITE_CORRUPT; found reading its replay records): restore it from a backup`,
    );
  });
});

// Found by a probe: after `rm passport.db*` under a running server, verify went on answering
// verified: true and logins 200 into the unlinked file with health healthy, and after a restart every
// line verified before verified again and every session was gone.
describe('the SQLite file deleted or replaced under a running server', () => {
  it.each([
    ['deleted', ['', '-wal', '-shm'], 'deleted'],
    ['replaced', ['', '-wal', '-shm'], 'replaced'],
    // A probe: only the WAL removed went unnoticed, and after a crash 650 lines verified again.
    ['with only its WAL deleted', ['-wal', '-shm'], 'deleted'],
  ] as const)(
    '%s: nothing is written any more: verify 503 REPLAY_STORE_UNAVAILABLE, JWT quota and login 503, logout refused, health degraded',
    async (how, suffixes, problem) => {
      const app = await startTestApp({});
      try {
        const key = newKey();
        const { tokenId } = await mintPassport(app, {
          owner: key,
          metadata: { max_requests: '100', maxrq_window: '60' },
        });
        const verify = (hola: string) =>
          fetch(`${app.baseUrl}/api/identity/verify`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ hola }),
          });
        const session = await login(app.baseUrl, { identifier: tokenId, key });
        const before = await verify(holaLine(app, { sender: tokenId, signer: key.signer }));
        expect(((await before.json()) as { verified: boolean }).verified).toBe(true);

        const file = path.join(app.dataDir, 'passport.db');
        for (const suffix of suffixes) await rm(`${file}${suffix}`, { force: true });
        if (how === 'replaced') writeFileSync(file, '');

        const after = await verify(holaLine(app, { sender: tokenId, signer: key.signer }));
        const afterBody = (await after.json()) as unknown;
        expectErrorEnvelope(
          { status: after.status, headers: after.headers, body: afterBody },
          'REPLAY_STORE_UNAVAILABLE',
        );
        // A JWT route takes the passport's quota in the database: 503, never a 500 or a free pass.
        const me = await fetch(`${app.baseUrl}/api/me/identity`, {
          headers: { authorization: `Bearer ${session.body.jwt_token}` },
        });
        expect(me.status).toBe(503);
        const loggedIn = await login(app.baseUrl, { identifier: tokenId, key });
        expect([loggedIn.status, loggedIn.body.error?.code]).toEqual([503, expect.any(String)]);
        // A logout is not answered as done into a file nobody opens again: its session read fails first
        // (a detached database vouches for no session: another process may have closed it through a new
        // WAL), 503 as on any JWT route; the client keeps its token and may retry.
        const logout = await fetch(`${app.baseUrl}/api/logout`, {
          method: 'POST',
          headers: { authorization: `Bearer ${session.body.jwt_token}` },
        });
        const logoutBody = (await logout.json()) as { error: { details: unknown } };
        expectErrorEnvelope(
          { status: logout.status, headers: logout.headers, body: logoutBody },
          'SERVICE_UNAVAILABLE',
        );
        expect(logoutBody.error.details).toMatchObject({ reason: 'session_store_unavailable' });
        const body = await health(app);
        expect(body.status).toBe('degraded');
        expect(body.checks.store).toMatchObject({
          status: 'fail',
          problem: `database file, its WAL or -shm ${problem} while open; restart the server`,
        });
        // A probe: readiness stayed 200, so a balancer kept sending traffic this instance can only
        // refuse, while an instance restarted (or another one) opens the file at its path and serves.
        const ready = await fetch(`${app.baseUrl}/health/ready`);
        expect(ready.status).toBe(503);
        expect(((await ready.json()) as { error: { details: unknown } }).error.details).toEqual({
          state: 'misconfigured',
          problem: `database file, its WAL or -shm ${problem} while open; restart the server`,
        });
      } finally {
        await app.close();
      }
    },
  );
});
