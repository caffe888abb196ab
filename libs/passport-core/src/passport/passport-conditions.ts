/**
 * @module passport/passport-conditions
 * The passport conditions login, verify and the client checks distinguish (spec "States and
 * transitions"; docs/protocol.md §3): live, revoked, issued by a trusted contract, carrying the metadata
 * the login rules need.
 *
 * Time bounds (`not_before`, `not_after`) are strings on chain. Accepted forms, decided here:
 * - empty, only whitespace or absent → unbounded; any value starting `1970-01-01`, the decimal `"0"`
 *   (collectibles, docs/protocol.md §4) and any Unix number on 1970-01-01 → unbounded (the first two
 *   with whitespace around them too); any other value with whitespace around it is invalid;
 * - ISO 8601 date `YYYY-MM-DD`: 00:00:00.000Z of that day, for `not_before` and `not_after` alike, as
 *   the production network reads it (`new Date("YYYY-MM-DD")`): a passport whose `not_after` is a date
 *   is not live on that day. Reading it as the day's last millisecond would keep such a passport live up
 *   to 24 h longer here than on every production verifier. `passport mint` writes a date given as
 *   `--not-after` as that day's last millisecond, so the holder's whole day holds everywhere;
 * - ISO 8601 date-time `YYYY-MM-DDTHH:MM[:SS[.fff]][Z|±HH:MM]`; without a zone it is UTC (never the
 *   machine's local zone, so every instance agrees). As `new Date` reads them on the production
 *   network, `T` may be a space, `T` and `Z` lowercase, and the offset `±HHMM`; an offset past 23:59
 *   (`+99:99`, `+14:60`) is invalid there and here (it moved a bound by days);
 * - decimal Unix time: below 10^11 it is seconds (up to year 5138), otherwise milliseconds.
 * Anything else is invalid, and an invalid bound makes the passport not live (fail closed).
 * Both bounds are inclusive: live when `not_before ≤ chain time ≤ not_after`.
 */
import { type PassportMetadata, type PassportRecord } from './passport.types.js';

export type PassportTimeBound =
  | { readonly kind: 'unbounded' }
  | { readonly kind: 'instant'; readonly ms: number }
  | { readonly kind: 'invalid' };

const UNBOUNDED: PassportTimeBound = { kind: 'unbounded' };
const INVALID: PassportTimeBound = { kind: 'invalid' };
const DAY_MS = 86_400_000;
const MAX_DATE_MS = 8.64e15;
const SECONDS_LIMIT = 1e11;
const ISO_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Parses a `not_before` or `not_after` value; see the module doc. `_edge` no longer changes the reading
 * (a date is its first millisecond for both bounds); it is kept so that callers written for it compile.
 */
export function parsePassportTimeBound(
  value: string | undefined | null,
  _edge?: 'start' | 'end',
): PassportTimeBound {
  if (value === undefined || value === null) return UNBOUNDED;
  if (typeof value !== 'string') return INVALID;
  const text = value.trim();
  if (text === '' || text.startsWith('1970-01-01') || text === '0') return UNBOUNDED;
  // Any other bound padded with whitespace is one `new Date` mostly cannot read (" 2026-01-01T00:00:00Z"
  // is NaN on the production network): refused, so no bound holds here that fails there.
  if (text !== value) return INVALID;
  if (/^\d+$/.test(text)) return fromUnixNumber(text);
  return fromIso(text);
}

function fromUnixNumber(text: string): PassportTimeBound {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) return INVALID;
  const ms = n < SECONDS_LIMIT ? n * 1000 : n;
  if (ms > MAX_DATE_MS) return INVALID;
  return ms < DAY_MS ? UNBOUNDED : { kind: 'instant', ms };
}

function fromIso(text: string): PassportTimeBound {
  const m = ISO_PATTERN.exec(text);
  if (!m) return INVALID;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = h === undefined ? 0 : Number(h);
  const minute = mi === undefined ? 0 : Number(mi);
  const second = s === undefined ? 0 : Number(s);
  const millis = frac === undefined ? 0 : Math.floor(Number(`0.${frac}`) * 1000);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return INVALID;
  const offsetMs = zoneOffsetMs(zone);
  if (Number.isNaN(offsetMs)) return INVALID;
  const base = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  // Date.UTC rolls 2026-02-30 over into March; a real calendar date reads back unchanged.
  const check = new Date(base);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    return INVALID;
  }
  return { kind: 'instant', ms: h === undefined ? base : base - offsetMs };
}

/** The zone's offset from UTC in ms; NaN for hours past 23 or minutes past 59. */
function zoneOffsetMs(zone: string | undefined): number {
  if (!zone || zone.toUpperCase() === 'Z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2, 4));
  if (hours > 23 || minutes > 59) return Number.NaN;
  return sign * (hours * 60 + minutes) * 60_000;
}

/** `not_after` as Unix ms: a number, null when unbounded, NaN when invalid. */
export function passportNotAfterMs(metadata: PassportMetadata): number | null {
  const bound = parsePassportTimeBound(metadata.not_after, 'end');
  return bound.kind === 'instant' ? bound.ms : bound.kind === 'unbounded' ? null : Number.NaN;
}

/**
 * Whether `not_before` or `not_after` bounds the passport (an unparsable bound counts: it is judged not
 * live); without bounds, liveness needs no chain time.
 */
export function hasPassportTimeBounds(metadata: PassportMetadata): boolean {
  return (
    parsePassportTimeBound(metadata.not_before, 'start').kind !== 'unbounded' ||
    parsePassportTimeBound(metadata.not_after, 'end').kind !== 'unbounded'
  );
}

/** Live: chain time within `[not_before, not_after]`, both inclusive; an unparsable bound is not live. */
export function isPassportLive(metadata: PassportMetadata, chainTimeMs: number): boolean {
  const start = parsePassportTimeBound(metadata.not_before, 'start');
  const end = parsePassportTimeBound(metadata.not_after, 'end');
  if (start.kind === 'invalid' || end.kind === 'invalid' || !Number.isFinite(chainTimeMs)) return false;
  if (start.kind === 'instant' && chainTimeMs < start.ms) return false;
  if (end.kind === 'instant' && chainTimeMs > end.ms) return false;
  return true;
}

/** Revoked: the record flag (local ledger) or metadata `revoked` = `"true"` (NEAR). */
export function isPassportRevoked(record: Pick<PassportRecord, 'revoked' | 'metadata'>): boolean {
  return record.revoked === true || record.metadata?.revoked === 'true';
}

/** Trusted: the issuing contract id is one of `trusted` (exact, case-sensitive: NEAR ids are lowercase). */
export function isContractTrusted(
  record: Pick<PassportRecord, 'contractId'>,
  trusted: readonly string[],
): boolean {
  return trusted.includes(record.contractId);
}

/**
 * Metadata a passport must carry to log in at all: the family it claims and the family root's
 * signature over its metadata. Without them no family rule can be applied, which is a missing-data
 * fault of the passport (`PASSPORT_MISSING_METADATA`), not a family mismatch.
 */
export const REQUIRED_LOGIN_METADATA = Object.freeze([
  'serviceprovider_id',
  'serviceprovider_signature',
] as const);

export function hasRequiredMetadata(record: Pick<PassportRecord, 'metadata'>): boolean {
  const metadata = record.metadata;
  if (metadata === null || typeof metadata !== 'object') return false;
  return REQUIRED_LOGIN_METADATA.every(
    (key) => typeof metadata[key] === 'string' && metadata[key].trim() !== '',
  );
}
