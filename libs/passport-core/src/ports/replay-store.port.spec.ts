import { storeCap } from './replay-store.port.js';

describe('storeCap', () => {
  it('scales the cap by the share: down below 1, up above it (a reserve is at least one record)', () => {
    expect([
      storeCap(10),
      storeCap(10, 0.5),
      storeCap(10, 1.2),
      storeCap(20, 1.01),
      storeCap(1_000_000, 1.01),
    ]).toEqual([10, 5, 12, 21, 1_010_000]);
    expect([storeCap(100, 0.29), storeCap(3, 0.5), storeCap(1, 0.1)]).toEqual([29, 1, 1]);
  });

  it('a share that is not a positive number counts as 1', () => {
    for (const share of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) expect(storeCap(10, share)).toBe(10);
  });
});
