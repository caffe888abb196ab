import { replayHealth } from './replay-health.js';
import { withinLast } from './within-last.js';

describe('withinLast', () => {
  it('is true from the moment itself to just before the window ends', () => {
    expect(withinLast(1_000, 1_000, 10_000)).toBe(true);
    expect(withinLast(1_000, 10_999, 10_000)).toBe(true);
    expect(withinLast(1_000, 11_000, 10_000)).toBe(false);
    expect(withinLast(null, 1_000, 10_000)).toBe(false);
  });

  // A clock-step probe: health said "failed in the last 10 s" for as long as a day's step back lasted.
  it('is false for a moment ahead of now (stamped before the clock was set back)', () => {
    expect(withinLast(86_400_000, 1_000, 10_000)).toBe(false);
  });

  it('keeps a store full a day "from now" out of health', () => {
    const usage = { records: 1, maxRecords: 10, refusedFull: 1, refusedQuota: 0, lastFullAtMs: 86_400_000 };
    expect(replayHealth(usage, 1_000).ok).toBe(true);
  });
});
