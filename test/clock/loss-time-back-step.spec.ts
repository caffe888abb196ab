/**
 * The converse of loss-time-forward-step: a loss noticed while the wall clock is right, and a step back
 * afterwards (an NTP step, a VM restored with its clock behind; within the Redis margin of 15 min no
 * store refuses it). lostRecordsAtMs() then moves back with the clock (min(lostAt, now - monotonic time
 * since)), to a time before the loss really was: a line stamped in between, used before the loss and
 * forgotten by it, no longer counts as "may have been used before the loss" and verifies again with a
 * long window (a review of 7939b4a; /tmp/s24/review3). The loss's time must not move back past the time
 * the line clocks (the senders', not this instance's) gave it: only a loss noticed during a step ahead
 * may be moved back.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createSqliteStoreBackend } from '../../apps/api/src/platform/store/sqlite.store-backend.js';
import { installWallClockStep, stepWallClock } from '../support/wall-clock-step.js';

const MINUTE = 60_000;
installWallClockStep();

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'passport-loss-back-step-'));
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

it('a loss noticed with the clock right keeps its time when the clock is stepped back afterwards', async () => {
  const first = createSqliteStoreBackend(dataDir, {}, 100);
  await first.replay.recordIfAbsent('used', Date.now(), Date.now() + 300_000);
  await first.close();
  await rm(path.join(dataDir, 'passport.db'), { force: true });
  await rm(path.join(dataDir, 'passport.db-wal'), { force: true });
  await rm(path.join(dataDir, 'passport.db-shm'), { force: true });

  const second = createSqliteStoreBackend(dataDir, {}, 100);
  try {
    await new Promise((resolve) => setTimeout(resolve, 200)); // the hold (100 ms) ends
    const noticed = second.replay.lostRecordsAtMs?.() ?? null;
    expect(noticed).not.toBeNull();
    // A line stamped 5 min before the loss (by its sender's right clock) may have been used before it.
    stepWallClock(-10 * MINUTE);
    const lostAt = second.replay.lostRecordsAtMs?.() ?? null;
    expect(lostAt! >= noticed! - 5 * MINUTE).toBe(true);
  } finally {
    await second.close();
  }
});
