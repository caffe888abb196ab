/**
 * Property laws of serviceprovider ids (`bc=<chain>;sc=<contract>;id=<root>[;id=…]`, docs/protocol.md §3):
 * round trip parse(format(x)) = x; canonical form format(parse(s)) = s for every text parse accepts
 * (one family, one spelling); totality.
 */
import fc from 'fast-check';
import { formatServiceProviderId, parseServiceProviderId } from './serviceprovider-id.js';

const value = fc.string({ unit: fc.constantFrom(...'abz09.-_:/é'), minLength: 1, maxLength: 8 });
const spid = fc.record({
  chain: value,
  contract: value,
  rootIds: fc.uniqueArray(value, { minLength: 1, maxLength: 4 }),
});
const textish = fc.string({
  unit: fc.constantFrom('bc=', 'sc=', 'id=', ';', '=', 'a', 'b', ' ', 'local', '\u00a0'),
  maxLength: 14,
});

describe('serviceprovider id laws', () => {
  it('round trip: parseServiceProviderId(formatServiceProviderId(x)) is x', () => {
    fc.assert(
      fc.property(spid, (x) => expect(parseServiceProviderId(formatServiceProviderId(x))).toEqual(x)),
    );
  });
  it('canonical form: every accepted text is the format of what it parses to', () => {
    fc.assert(
      fc.property(fc.oneof(textish, spid.map(formatServiceProviderId)), (text) => {
        const parsed = parseServiceProviderId(text);
        if (parsed !== null) expect(formatServiceProviderId(parsed)).toBe(text);
      }),
      { numRuns: 3000 },
    );
  });
  it('totality: null for anything that is not a string, never a throw', () => {
    fc.assert(
      fc.property(fc.anything(), (v) => (typeof v === 'string' ? true : parseServiceProviderId(v) === null)),
    );
  });
});
