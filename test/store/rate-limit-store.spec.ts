/**
 * The RateLimitStore contract (@passport/core/testing) against every adapter this repo ships (the core's
 * memory adapter, SQLite on a temp file), and what only a database file allows: processes sharing a bucket.
 */
import { describeRateLimitStoreContract } from '@passport/core/testing';
import { rateLimitAdapters } from './support/store-adapters.js';
import { runContenders } from './support/contenders.js';

const framework = { describe, it, expect, beforeEach, afterEach };

for (const adapter of rateLimitAdapters) describeRateLimitStoreContract(framework, adapter);

describe('RateLimitStore (sqlite): processes on one file', () => {
  const sqlite = rateLimitAdapters.find((a) => a.name === 'sqlite')!;
  let h: ReturnType<typeof sqlite.open>;
  beforeEach(() => {
    h = sqlite.open();
  });
  afterEach(() => h.close());

  it('three processes taking 100 each from a bucket of 120: exactly 120 allowed in total', async () => {
    const reports = await runContenders<{ allowed: number }>(3, [
      h.file as string,
      'take',
      'shared',
      '100',
      '120',
    ]);
    expect(reports.reduce((sum, r) => sum + r.allowed, 0)).toBe(120);
  });
});
