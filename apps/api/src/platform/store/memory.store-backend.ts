/**
 * The `STORE=memory` family: the core's in-memory adapters (one process; lost on restart), each capped,
 * plus the same unref'd background sweep as the SQLite family so that expired entries do not wait for
 * the cap to be reached before they are released.
 */
import { MemoryReplayStore, sequentialLoginRecorder, systemClock } from '@passport/core';
import { MemoryRateLimitStore, MemorySessionStore } from '@passport/core/memory';
import { type StoreBackend, type StoreBackendOptions } from './store-backend.types.js';
import { startPeriodicSweep } from '@passport/adapters/sweep';
import { replayHealth } from './replay-health.js';
import { runsOnSystemClock, stepSafeRemoval } from './step-safe-removal.js';
import { DEFAULT_SWEEP_INTERVAL_MS } from '@passport/adapters/sqlite';

export function createMemoryStoreBackend(options: StoreBackendOptions = {}): StoreBackend {
  const clock = options.clock ?? systemClock;
  const replay = new MemoryReplayStore({
    maxEntries: options.replay?.maxEntries,
    monotonicNowMs: runsOnSystemClock(options.clock) ? () => performance.now() : undefined,
  });
  const sessions = new MemorySessionStore({
    maxEntries: options.sessions?.maxEntries,
    maxOpenPerPassport: options.sessions?.maxOpenPerPassport,
    removalHorizon: stepSafeRemoval(options.clock),
  });
  const rateLimit = new MemoryRateLimitStore({ maxKeys: options.rateLimit?.maxEntries });
  const sweeps = [
    startPeriodicSweep(
      () => replay.sweep(clock.nowMs()),
      options.replay?.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS,
    ),
    startPeriodicSweep(
      () => void sessions.sweep(clock.nowMs()),
      options.sessions?.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS,
    ),
    startPeriodicSweep(
      () => rateLimit.sweep(clock.nowMs()),
      options.rateLimit?.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS,
    ),
  ];
  return {
    kind: 'memory',
    replay,
    sessions,
    rateLimit,
    loginRecorder: sequentialLoginRecorder(replay, sessions, (key) => replay.forget(key)),
    health: {
      name: 'store',
      check: async () => {
        const replayState = replayHealth(replay.usage(), clock.nowMs());
        return { ok: replayState.ok, detail: { adapter: 'memory', replay: replayState.detail } };
      },
    },
    close() {
      for (const sweep of sweeps) sweep.stop();
    },
  };
}
