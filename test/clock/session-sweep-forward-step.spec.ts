/**
 * A wall clock stepped ahead past the sessions' end (an NTP step, an operator's typo) and then set back.
 * The background sweep that ran during the step deleted every open session on the memory and SQLite
 * stores, so once the clock came back every agent's token was refused (401 INVALIDATED_TOKEN,
 * `session_unknown`) although its session had time left by the true time. Found by a probe that ran the
 * real app under libfaketime (+2 h for 70 s, then back). The Redis store keeps them: its session sweeps
 * never run ahead of Redis's clock. The replay stores were fixed for the same step (removal horizon,
 * monotonic deadlines); the session stores were not.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createMemoryStoreBackend } from '../../apps/api/src/platform/store/memory.store-backend.js';
import { createSqliteStoreBackend } from '../../apps/api/src/platform/store/sqlite.store-backend.js';
import {
  type StoreBackend,
  type StoreBackendOptions,
} from '../../apps/api/src/platform/store/store-backend.types.js';
import { installWallClockStep, stepWallClock } from '../support/wall-clock-step.js';

const HOUR = 3_600_000;
installWallClockStep();

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'passport-session-step-'));
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

const fastSweeps: StoreBackendOptions = { sessions: { sweepIntervalMs: 20 } };

it.each([
  ['memory', () => createMemoryStoreBackend(fastSweeps)],
  ['sqlite', () => createSqliteStoreBackend(dataDir, fastSweeps)],
])(
  'the %s store keeps an open session through a sweep during a forward step',
  async (_, create: () => StoreBackend) => {
    const backend = create();
    try {
      const now = Date.now();
      const sessionId = 'sess_bmcvanufakaq_01M8H8B11CFH5EQW9E69XVR9ED';
      await backend.sessions.create({
        sessionId,
        tokenId: 'bmcvanufakaq',
        ownerId: 'a'.repeat(64),
        jti: 'jti-1',
        createdAtMs: now,
        expiresAtMs: now + 5_200_000,
        closedAtMs: null,
        closeReason: null,
        federatedFrom: null,
      });
      stepWallClock(2 * HOUR);
      await new Promise((resolve) => setTimeout(resolve, 200)); // several sweeps run during the step
      stepWallClock(0);
      const session = await backend.sessions.get(sessionId);
      expect(session).not.toBeNull();
      expect(session?.closedAtMs).toBeNull();
    } finally {
      await backend.close();
    }
  },
);
