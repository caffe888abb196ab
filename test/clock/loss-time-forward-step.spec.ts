/**
 * A loss noticed while the wall clock is stepped ahead (a VM started with its clock ahead and a database
 * restored from a backup at the same boot; an NTP step): the store keeps the stepped time as the loss's
 * time. Once the clock comes back and the hold ends, verify answers every line stamped before that
 * "loss" nonce_replay (lostRecordsAtMs()), so every fresh line is refused as a replay for as long as the
 * step was (a review: +1 h under libfaketime, SQLITE_LOSS_HOLD_MS 3 s, fresh lines nonce_replay after
 * the hold; /tmp/s24/review2/loss-step-sqlite.sh). The loss's time must move back with the clock.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createSqliteStoreBackend } from '../../apps/api/src/platform/store/sqlite.store-backend.js';
import { installWallClockStep, stepWallClock } from '../support/wall-clock-step.js';

const HOUR = 3_600_000;
installWallClockStep();

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'passport-loss-step-'));
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

it('a loss noticed during a step ahead is not "in the future" once the clock comes back', async () => {
  const first = createSqliteStoreBackend(dataDir, {}, 100);
  await first.replay.recordIfAbsent('used', Date.now(), Date.now() + 300_000);
  await first.close();
  await rm(path.join(dataDir, 'passport.db'), { force: true });
  await rm(path.join(dataDir, 'passport.db-wal'), { force: true });
  await rm(path.join(dataDir, 'passport.db-shm'), { force: true });

  stepWallClock(HOUR);
  const second = createSqliteStoreBackend(dataDir, {}, 100);
  try {
    stepWallClock(0);
    await new Promise((resolve) => setTimeout(resolve, 200)); // the hold (100 ms) ends
    const lostAt = second.replay.lostRecordsAtMs?.() ?? null;
    expect(lostAt).not.toBeNull();
    // A line stamped now (true time) must not count as stamped before the loss.
    expect(lostAt!).toBeLessThanOrEqual(Date.now());
  } finally {
    await second.close();
  }
});
