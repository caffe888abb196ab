/**
 * The memory store after a suspend (a VM or laptop resumed: the wall clock moved on, monotonic time did
 * not). A review of the first clock-step fix, a removal horizon anchored at start: it lagged the wall
 * clock by the suspend's length for the rest of the process's life, so every record, also those made
 * after the resume, was kept that much past its expiry, and a store sized for 6 minutes of traffic
 * refused (503) until a restart. Each record now has its own monotonic deadline, from when it was made.
 */
import { MemoryReplayStore } from '@passport/core';
import { PassportError } from '@passport/core/errors';

const T = 1_800_000_000_000;
const DAY = 86_400_000;
const LIFE_MS = 360_000;

it('records made after a resume are deleted once they expire, and a full store takes new ones', async () => {
  let wall = T;
  let monotonic = 0;
  const store = new MemoryReplayStore({
    maxEntries: 10,
    sweepIntervalMs: 0,
    monotonicNowMs: () => monotonic,
  });
  wall += DAY; // suspended a day: monotonic time stood still
  for (let i = 0; i < 10; i++) await store.recordIfAbsent(`k${i}`, wall, wall + LIFE_MS);
  wall += LIFE_MS + 1_000;
  monotonic += LIFE_MS + 1_000;
  // Every record has expired by the true time: the store must have room again.
  const outcome = await store.recordIfAbsent('new', wall, wall + LIFE_MS).then(
    (o) => o.recorded,
    (e: unknown) => (e instanceof PassportError ? e.code : e),
  );
  expect(outcome).toBe(true);
});
