import fc from 'fast-check';
import { isoTimestamp } from './iso-timestamp.js';

describe('isoTimestamp', () => {
  it('is Date#toISOString, whatever the order of the times asked (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -8.64e15, max: 8.64e15 }), { minLength: 1, maxLength: 20 }),
        (times) => {
          for (const ms of [...times, ...times.reverse()])
            expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
        },
      ),
    );
  });

  it('defaults to now and still throws for an invalid time, even right after a valid one', () => {
    const before = Date.now();
    const now = Date.parse(isoTimestamp());
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
    isoTimestamp(0);
    expect(() => isoTimestamp(Number.NaN)).toThrow(RangeError);
    expect(() => isoTimestamp(8.64e15 + 1)).toThrow(RangeError);
    expect(isoTimestamp(0)).toBe('1970-01-01T00:00:00.000Z');
  });
});
