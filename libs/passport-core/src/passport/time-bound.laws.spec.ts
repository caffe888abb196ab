/**
 * Property law of passport time bounds (not_before / not_after): fail closed against production's
 * reading. Every bound read here as an instant is the instant `new Date` reads on the production network
 * (a zone-less date-time as UTC, as this module decides), on near-ISO text of every shape: calendar
 * overflow, 0–10 fraction digits, T/t/space, Z/z, ±HH:MM and ±HHMM offsets in and out of range.
 */
import fc from 'fast-check';
import { parsePassportTimeBound } from './passport-conditions.js';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const nearIso = fc
  .tuple(
    fc.integer({ min: 0, max: 9999 }),
    fc.integer({ min: 0, max: 13 }),
    fc.integer({ min: 0, max: 32 }),
    fc.option(
      fc.tuple(
        fc.integer({ min: 0, max: 25 }),
        fc.integer({ min: 0, max: 61 }),
        fc.option(fc.integer({ min: 0, max: 61 })),
        fc.option(fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 10 })),
        fc.option(fc.constantFrom('Z', 'z', '+01:00', '-0530', '+2359', '+24:00', '+00:60', '-12:34', '+1')),
        fc.constantFrom('T', ' ', 't'),
      ),
    ),
  )
  .map(([y, m, d, t]) => {
    let s = `${pad(y, 4)}-${pad(m)}-${pad(d)}`;
    if (t) {
      const [h, mi, se, fr, z, sep] = t;
      s += `${sep}${pad(h)}:${pad(mi)}`;
      if (se !== null) s += `:${pad(se)}${fr !== null ? `.${fr}` : ''}`;
      if (z !== null) s += z;
    }
    return s;
  });

describe('time bound laws', () => {
  it('oracle (fail closed): an instant read here is the instant new Date reads', () => {
    fc.assert(
      fc.property(
        fc.oneof(nearIso, fc.string({ unit: fc.constantFrom(...'0123456789-:.TZtz +'), maxLength: 30 })),
        (text) => {
          const bound = parsePassportTimeBound(text, 'end');
          if (bound.kind !== 'instant' || /^\d+$/.test(text)) return;
          const zoneless = /[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text);
          expect({ text, ms: bound.ms }).toEqual({ text, ms: Date.parse(zoneless ? `${text}Z` : text) });
        },
      ),
      { numRuns: 20000 },
    );
  });
});
