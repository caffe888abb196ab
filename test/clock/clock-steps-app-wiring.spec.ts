/**
 * The clock-step protections as the real application wires them: the Nest app always provides CLOCK
 * (systemClock by default), so a store backend that treats "a clock was given" as "a test's clock" turns
 * the removal horizon and the hold clock off in production. These drive the running app.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RecordingPausedError } from '@passport/core/ports';
import { STORE_BACKEND } from '../../apps/api/src/platform/store/store.module.js';
import { type StoreBackend } from '../../apps/api/src/platform/store/store-backend.types.js';
import { login, mintPassport, newKey } from '../support/passports.js';
import { startTestApp } from '../support/test-app.js';
import { installWallClockStep, stepWallClock } from '../support/wall-clock-step.js';

const DAY = 24 * 60 * 60_000;
installWallClockStep();

describe.each(['memory', 'sqlite'])(
  'STORE=%s: a sweep during a forward step the clock then takes back',
  (store) => {
    it('a used login challenge stays used', async () => {
      const app = await startTestApp({ STORE: store });
      try {
        const key = newKey();
        const minted = await mintPassport(app, { owner: key });
        const first = await login(app.baseUrl, { identifier: minted.tokenId, key });
        expect(first.status).toBe(200);
        const backend = app.app.get<StoreBackend>(STORE_BACKEND);
        stepWallClock(DAY); // the wall clock a day ahead; the background sweep runs
        await (backend.replay as unknown as { sweep(nowMs: number): unknown }).sweep(Date.now());
        stepWallClock(0); // set back
        const again = await login(app.baseUrl, {
          identifier: minted.tokenId,
          key,
          challenge: first.challenge,
        });
        expect(again.status).not.toBe(200);
      } finally {
        stepWallClock(0);
        await app.close();
      }
    });
  },
);

// The SQLite loss hold as the app runs it (SqliteStoreHistory's hold clock is skipped when a clock is
// given, and the app always gives one): a day's step back must not make a 331 s hold last a day.
it('STORE=sqlite: a loss hold is not lengthened by a step back of the wall clock', async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'passport-wiring-hold-'));
  try {
    await (await startTestApp({ STORE: 'sqlite', DATA_DIR: dataDir })).close();
    for (const file of ['passport.db', 'passport.db-wal', 'passport.db-shm'])
      await rm(path.join(dataDir, file), { force: true });
    const app = await startTestApp({ STORE: 'sqlite', DATA_DIR: dataDir });
    try {
      const { replay } = app.app.get<StoreBackend>(STORE_BACKEND);
      const retryAfterMs = async (): Promise<number> => {
        const now = Date.now();
        const error = await Promise.resolve(replay.recordIfAbsent(`k${now}`, now, now + 60_000)).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(RecordingPausedError);
        return (error as RecordingPausedError).retryAfterMs;
      };
      expect(await retryAfterMs()).toBeLessThanOrEqual(331_000);
      stepWallClock(-DAY);
      expect(await retryAfterMs()).toBeLessThanOrEqual(331_000);
    } finally {
      stepWallClock(0);
      await app.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
