/**
 * A loss hold against times another process wrote (a review of the first clock-step fix, whose "hold
 * clock" carried a start-time reading by monotonic time: a process started while the wall clock was
 * ahead stayed ahead for its whole life and took other processes' holds for over). Holds now keep their
 * end on the wall clock, compared with other processes' times, and on monotonic time from when they
 * were set (`HoldDeadline`), which a step cannot stretch.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDatabase, SqliteStoreHistory } from '@passport/adapters/sqlite';

const HOUR = 3_600_000;
const HOLD_MS = 331_000;
const T = 1_800_000_000_000;

let dir: string;
const dbs: SqliteDatabase[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'passport-hold-clock-'));
});
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(now: () => number, monotonicNowMs?: () => number): SqliteStoreHistory {
  const db = SqliteDatabase.openInDataDir(dir);
  dbs.push(db);
  return SqliteStoreHistory.check(db, { holdMs: HOLD_MS, now, monotonicNowMs });
}

it("a process whose clock was ahead at start and then set right holds for another process's loss", () => {
  let wall = T + HOUR; // an hour ahead when process A starts
  let monotonic = 0;
  const a = open(
    () => wall,
    () => monotonic,
  );
  monotonic += 60_000;
  wall = T + 60_000; // NTP steps the clock back to the true time
  // Process B (started after the correction, or A's neighbour) notices a loss and records it.
  const b = open(() => wall);
  b.lost('the log went back', wall - 1_000);
  expect(b.holdRemainingMs).toBe(HOLD_MS);
  a.refresh();
  // A must refuse replay records too: every used line and login challenge was forgotten.
  expect(a.holdRemainingMs).toBeGreaterThan(0);
});

// SqliteReplayStore passes history.lost() an intactAtMs read on the store's clock (the wall clock); the
// history's own times must be on the same clock, or after a step back a new loss is taken for the last.
it('a second loss after a step back is held, though intactAtMs is read on the wall clock', () => {
  let wall = T;
  let monotonic = 0;
  const history = open(
    () => wall,
    () => monotonic,
  );
  history.lost('first restore', wall - 1_000);
  expect(history.holdRemainingMs).toBe(HOLD_MS);
  const pass = (ms: number) => {
    wall += ms;
    monotonic += ms;
  };
  pass(HOLD_MS + 60_000); // the first hold over
  wall -= HOUR; // the wall clock stepped back an hour
  pass(60_000);
  const intactAtMs = wall; // the store found the database intact (store clock: the wall)
  pass(1_000);
  history.lost('second restore', intactAtMs);
  expect(history.holdRemainingMs).toBeGreaterThan(0);
});

it('a hold set before the wall clock stepped back a day ends when it was due', () => {
  let wall = T;
  let monotonic = 0;
  const history = open(
    () => wall,
    () => monotonic,
  );
  history.lost('a restore', wall - 1_000);
  expect(history.holdRemainingMs).toBe(HOLD_MS);
  wall -= 24 * HOUR;
  monotonic += 1_000;
  wall += 1_000;
  expect(history.holdRemainingMs).toBe(HOLD_MS - 1_000);
  monotonic += HOLD_MS;
  wall += HOLD_MS;
  expect(history.holdRemainingMs).toBe(0);
  expect(history.problem).toBeUndefined();
});
