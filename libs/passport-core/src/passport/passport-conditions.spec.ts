import fc from 'fast-check';
import { encodeHex } from '../codecs/hex.codec.js';
import { MemoryChainReader } from '../memory/memory-chain.reader.js';
import {
  hasPassportTimeBounds,
  hasRequiredMetadata,
  isContractTrusted,
  isPassportLive,
  isPassportRevoked,
  parsePassportTimeBound,
  passportNotAfterMs,
} from './passport-conditions.js';
import { MAX_OWNER_KEYS, resolveOwnerKeys } from './owner-keys.js';

const at = (iso: string) => Date.parse(iso);

describe('time bounds', () => {
  it.each([
    [undefined, 'unbounded'],
    ['', 'unbounded'],
    ['   ', 'unbounded'],
    ['0', 'unbounded'],
    ['1970-01-01', 'unbounded'],
    ['1970-01-01T00:00:00.000Z', 'unbounded'],
    ['86399', 'unbounded'],
  ])('%j is unbounded', (value, kind) => {
    expect(parsePassportTimeBound(value, 'end').kind).toBe(kind);
  });
  it.each([
    ['2026-02-30', 'not a calendar date'],
    ['2026-13-01', 'month 13'],
    ['2026-01-01T24:00:00Z', 'hour 24'],
    ['next year', 'words'],
    ['-5', 'negative'],
    ['1.5', 'fraction'],
    ['99999999999999999', 'past the Date range'],
    ['2026/01/01', 'slashes'],
  ])('%j is invalid (%s)', (value) => {
    expect(parsePassportTimeBound(value, 'start')).toEqual({ kind: 'invalid' });
  });
  // Found by a probe: a not_after date was read as the day's last millisecond, so a passport production
  // verifiers (new Date("YYYY-MM-DD")) hold expired all that day was live here.
  it('reads dates as their first UTC millisecond for both bounds (as production), date-times with zones, and Unix seconds or ms', () => {
    expect(parsePassportTimeBound('2026-01-01', 'start')).toEqual({
      kind: 'instant',
      ms: at('2026-01-01T00:00:00.000Z'),
    });
    expect(parsePassportTimeBound('2026-01-01', 'end')).toEqual({
      kind: 'instant',
      ms: new Date('2026-01-01').getTime(),
    });
    expect(parsePassportTimeBound('2026-01-01')).toEqual(parsePassportTimeBound('2026-01-01', 'end'));
    expect(parsePassportTimeBound('2026-01-01T10:00:00+02:00', 'end')).toEqual({
      kind: 'instant',
      ms: at('2026-01-01T08:00:00Z'),
    });
    expect(parsePassportTimeBound('2026-01-01T10:00', 'end')).toEqual({
      kind: 'instant',
      ms: at('2026-01-01T10:00:00Z'),
    });
    expect(parsePassportTimeBound('2026-01-01T10:00:00.5Z', 'end')).toEqual({
      kind: 'instant',
      ms: at('2026-01-01T10:00:00.500Z'),
    });
    expect(parsePassportTimeBound('1767225600', 'end')).toEqual({ kind: 'instant', ms: 1767225600000 });
    expect(parsePassportTimeBound('1767225600000', 'end')).toEqual({ kind: 'instant', ms: 1767225600000 });
  });
  // From a mutation probe: `<=` for `<` at the seconds/milliseconds split passed (no value at 10^11).
  it('decimal Unix time: below 10^11 is seconds, 10^11 itself is milliseconds (docs/protocol.md)', () => {
    expect(parsePassportTimeBound('99999999999', 'end')).toEqual({ kind: 'instant', ms: 99_999_999_999_000 });
    expect(parsePassportTimeBound('100000000000', 'end')).toEqual({ kind: 'instant', ms: 100_000_000_000 });
  });
  it('agrees with Date.parse on every canonical ISO instant (property)', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1971-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }),
        (d) => {
          expect(parsePassportTimeBound(d.toISOString(), 'start')).toEqual({
            kind: 'instant',
            ms: d.getTime(),
          });
        },
      ),
    );
  });

  // A probe: a date-time with whitespace around it was read here, and is NaN for new Date there.
  it.each([
    ' 2026-01-01T00:00:00Z',
    '2026-01-01T00:00:00Z ',
    '\t2047-05-06T00:25\n',
    ' 1767225600',
    '2026-01-01 ',
  ])('a bound with whitespace around it (%j) is invalid; only whitespace is unbounded', (value) => {
    expect(parsePassportTimeBound(value, 'end')).toEqual({ kind: 'invalid' });
    expect(parsePassportTimeBound('  \t', 'end')).toEqual({ kind: 'unbounded' });
    // The resolutions' unbounded markers stay unbounded, padded or not (a probe of the first version).
    for (const marker of ['1970-01-01 ', ' 1970-01-01T00:00:00Z', '0 ', ' 0'])
      expect(parsePassportTimeBound(marker, 'end')).toEqual({ kind: 'unbounded' });
  });

  // A probe: `+99:99` was read as an offset of 4 days (a not_after moved that far), where production's
  // `new Date` finds no date at all. An invalid bound makes the passport not live.
  it.each(['+99:99', '-99:99', '+24:00', '+14:60', '+0960', '-2400'])(
    'an offset past 23:59 (%s) is invalid',
    (zone) => {
      expect(parsePassportTimeBound(`2026-11-27T00:00:00${zone}`, 'end')).toEqual({ kind: 'invalid' });
    },
  );

  it('reads a date-time with a zone as new Date does, for every offset up to ±23:59 and each spelling production accepts (property)', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1971-01-02'), max: new Date('9998-12-30'), noInvalidDate: true }),
        fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
        fc.constantFrom('T', 't', ' '),
        fc.boolean(),
        (d, offsetMinutes, separator, withColon) => {
          const sign = offsetMinutes < 0 ? '-' : '+';
          const abs = Math.abs(offsetMinutes);
          const hh = String(Math.floor(abs / 60)).padStart(2, '0');
          const mm = String(abs % 60).padStart(2, '0');
          const local = new Date(d.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 23);
          const text = `${local.slice(0, 10)}${separator}${local.slice(11)}${sign}${hh}${withColon ? ':' : ''}${mm}`;
          expect(parsePassportTimeBound(text, 'end')).toEqual({ kind: 'instant', ms: Date.parse(text) });
          expect(Date.parse(text)).toBe(d.getTime());
        },
      ),
    );
  });
});

describe('isPassportLive', () => {
  const window = { not_before: '2026-01-01', not_after: '2026-12-31' };
  it('is inclusive at both ends', () => {
    expect(isPassportLive(window, at('2026-01-01T00:00:00.000Z'))).toBe(true);
    expect(isPassportLive(window, at('2026-12-31T00:00:00.000Z'))).toBe(true);
    expect(isPassportLive(window, at('2026-12-31T00:00:00.001Z'))).toBe(false);
    expect(isPassportLive(window, at('2025-12-31T23:59:59.999Z'))).toBe(false);
  });
  it('treats empty and 1970 bounds as open, and any invalid bound as not live', () => {
    expect(isPassportLive({}, 0)).toBe(true);
    expect(isPassportLive({ not_before: '', not_after: '1970-01-01T00:00:00Z' }, at('2100-01-01'))).toBe(
      true,
    );
    expect(isPassportLive({ not_after: 'soon' }, at('2026-01-01'))).toBe(false);
    expect(isPassportLive({ not_before: 'x' }, at('2026-01-01'))).toBe(false);
    expect(isPassportLive({}, Number.NaN)).toBe(false);
  });
  it('gives the not_after instant for JWT expiry', () => {
    expect(passportNotAfterMs({ not_after: '2026-12-31' })).toBe(at('2026-12-31T00:00:00.000Z'));
    expect(passportNotAfterMs({ not_after: '0' })).toBeNull();
    expect(passportNotAfterMs({ not_after: 'bad' })).toBeNaN();
  });
});

describe('revoked, trusted, required metadata', () => {
  const record = {
    tokenId: 'chbvcnurbkuw',
    ownerId: 'a.test',
    contractId: 'passport.test',
    metadata: {},
    revoked: false,
  };
  it('revoked by flag or NEAR metadata, and only by "true"', () => {
    expect(isPassportRevoked(record)).toBe(false);
    expect(isPassportRevoked({ ...record, revoked: true })).toBe(true);
    expect(isPassportRevoked({ ...record, metadata: { revoked: 'true' } })).toBe(true);
    expect(isPassportRevoked({ ...record, metadata: { revoked: 'TRUE' } })).toBe(false);
    expect(isPassportRevoked({ ...record, metadata: { revoked: 'false' } })).toBe(false);
  });
  it('trusts exact contract ids only', () => {
    expect(isContractTrusted(record, ['passport.test'])).toBe(true);
    expect(isContractTrusted(record, ['Passport.test', 'other.test'])).toBe(false);
    expect(isContractTrusted(record, [])).toBe(false);
  });
  it('requires a family claim and the family signature', () => {
    expect(
      hasRequiredMetadata({ metadata: { serviceprovider_id: 'x', serviceprovider_signature: 'y' } }),
    ).toBe(true);
    expect(hasRequiredMetadata({ metadata: { serviceprovider_id: 'x' } })).toBe(false);
    expect(
      hasRequiredMetadata({ metadata: { serviceprovider_id: ' ', serviceprovider_signature: 'y' } }),
    ).toBe(false);
    expect(hasRequiredMetadata({ metadata: null as never })).toBe(false);
  });
});

describe('resolveOwnerKeys', () => {
  const key = new Uint8Array(32).fill(5);
  const chain = new MemoryChainReader({ contractId: 'c', accounts: { 'alice.test': [key] } });
  it('an implicit account is its own key, without asking the chain', async () => {
    chain.setUnavailable('down');
    await expect(resolveOwnerKeys(chain, encodeHex(key))).resolves.toEqual([key]);
    chain.setUnavailable(null);
  });
  it('a named account has its chain keys; an unknown one none', async () => {
    await expect(resolveOwnerKeys(chain, 'alice.test')).resolves.toEqual([key]);
    await expect(resolveOwnerKeys(chain, 'bob.test')).resolves.toEqual([]);
  });
  // Found by a probe: an account with 5000 keys made every forged line cost 5000 signature checks.
  it('a named account with more than MAX_OWNER_KEYS keys signs with none; at the bound, with all', async () => {
    const keyOf = (i: number) => new Uint8Array(32).fill(i % 251).map((b, j) => (j === 0 ? i >> 8 : b));
    const many = Array.from({ length: 5000 }, (_, i) => keyOf(i));
    const atBound = many.slice(0, MAX_OWNER_KEYS);
    const chainOf = new MemoryChainReader({
      contractId: 'c',
      accounts: { 'many.test': many, 'bound.test': atBound, 'over.test': many.slice(0, MAX_OWNER_KEYS + 1) },
    });
    await expect(resolveOwnerKeys(chainOf, 'many.test')).resolves.toEqual([]);
    await expect(resolveOwnerKeys(chainOf, 'over.test')).resolves.toEqual([]);
    await expect(resolveOwnerKeys(chainOf, 'bound.test')).resolves.toEqual(atBound);
  });
});

describe('hasPassportTimeBounds', () => {
  it('is true for a readable or unreadable bound, false for none (liveness then needs no chain time)', () => {
    expect(hasPassportTimeBounds({})).toBe(false);
    expect(hasPassportTimeBounds({ not_after: '0' })).toBe(false);
    expect(hasPassportTimeBounds({ not_before: '2026-01-01' })).toBe(true);
    expect(hasPassportTimeBounds({ not_after: 'soon' })).toBe(true);
  });

  it('agrees with isPassportLive: without bounds a passport is live at any chain time', () => {
    fc.assert(
      fc.property(fc.option(fc.string()), fc.option(fc.string()), fc.integer(), (start, end, t) => {
        const metadata = {
          ...(start === null ? {} : { not_before: start }),
          ...(end === null ? {} : { not_after: end }),
        };
        if (!hasPassportTimeBounds(metadata)) expect(isPassportLive(metadata, t)).toBe(true);
      }),
    );
  });
});
