/**
 * The session sweeps delete by the removal horizon (wall time carried by monotonic time since start),
 * so that a sweep during a step ahead keeps open sessions. But a machine that was suspended (monotonic
 * time stops, the wall clock does not) or a clock that was behind at start and then corrected leaves the
 * horizon hours behind the true time (up to 25 h) for the rest of the process's life: sessions that truly
 * expired are never deleted, and a store at SESSION_MAX_ENTRIES full of expired sessions refuses every
 * login (503 SESSION_CAPACITY_REACHED), where README says only "when full of open ones" (a review).
 * Here the wall clock moves 2 h ahead with no monotonic time: what a 2 h suspend looks like to a process.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createMemoryStoreBackend } from '../../apps/api/src/platform/store/memory.store-backend.js';
import { createSqliteStoreBackend } from '../../apps/api/src/platform/store/sqlite.store-backend.js';
import { type StoreBackend } from '../../apps/api/src/platform/store/store-backend.types.js';
import { installWallClockStep, stepWallClock } from '../support/wall-clock-step.js';

const HOUR = 3_600_000;
installWallClockStep();

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'passport-session-suspend-'));
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

const session = (n: number, now: number) => ({
  sessionId: `sess_bmcvanufakaq_01M8H8B11CFH5EQW9E69XVR9E${n}`,
  tokenId: `bmcvanufaka${'bcd'[n]}`,
  ownerId: 'a'.repeat(64),
  jti: `jti-${n}`,
  createdAtMs: now,
  expiresAtMs: now + 60_000,
  closedAtMs: null,
  closeReason: null,
  federatedFrom: null,
});

it.each([
  ['memory', () => createMemoryStoreBackend({ sessions: { maxEntries: 2 } })],
  ['sqlite', () => createSqliteStoreBackend(dataDir, { sessions: { maxEntries: 2 } })],
])(
  'the %s store, full of sessions that expired during a suspend, admits a login after it',
  async (_, create: () => StoreBackend) => {
    const backend = create();
    try {
      await backend.sessions.create(session(0, Date.now()));
      await backend.sessions.create(session(1, Date.now()));
      stepWallClock(2 * HOUR); // resumed: both sessions ended over an hour ago
      expect(await backend.sessions.countOpen(Date.now())).toBe(0);
      await expect(backend.sessions.create(session(2, Date.now()))).resolves.toBeUndefined();
    } finally {
      await backend.close();
    }
  },
);
