/**
 * Type-checked only (by `npm run typecheck`; never run): the port contract suites take node:test's
 * `describe`, `it` and hooks as they are (an integrator's probe: node:test's `it` did not fit the suites'
 * test API, TS2322, since the suites' bodies were typed as returning any PromiseLike).
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import { describeReplayStoreContract, singleProcessHarness } from '@passport/core/testing';
import { MemoryReplayStore } from '@passport/core/memory';

export function describeMemoryReplayStoreUnderNodeTest(): void {
  describeReplayStoreContract(
    { describe, it, expect, beforeEach, afterEach },
    {
      name: 'memory under node:test',
      sharedStorage: false,
      open: (options) => {
        const store = new MemoryReplayStore({ maxEntries: options?.maxEntries });
        return singleProcessHarness(store, {
          size: () => store.size,
          sweep: (nowMs: number) => store.sweep(nowMs),
          usage: () => store.usage(),
        });
      },
    },
  );
}
