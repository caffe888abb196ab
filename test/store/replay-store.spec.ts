/**
 * The ReplayStore contract (@passport/core/testing) against every adapter this repo ships (the core's
 * memory adapter, SQLite on a temp file), and what only a database file allows: processes racing on it.
 */
import { describeReplayStoreContract } from '@passport/core/testing';
import { replayAdapters } from './support/store-adapters.js';
import { runContenders } from './support/contenders.js';

const framework = { describe, it, expect, beforeEach, afterEach };

for (const adapter of replayAdapters) describeReplayStoreContract(framework, adapter);

describe('ReplayStore (sqlite): processes on one file', () => {
  const sqlite = replayAdapters.find((a) => a.name === 'sqlite')!;
  let h: ReturnType<typeof sqlite.open>;
  beforeEach(() => {
    h = sqlite.open();
  });
  afterEach(() => h.close());

  it('three processes racing over 300 keys: each key is recorded exactly once in total', async () => {
    const reports = await runContenders<{ recorded: string[] }>(3, [h.file as string, 'replay', '300', '2']);
    const all = reports.flatMap((r) => r.recorded);
    expect(all).toHaveLength(300);
    expect(new Set(all).size).toBe(300);
    expect(await h.size()).toBe(300);
  });
});
