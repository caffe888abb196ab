/**
 * @module hola/hola-timestamp.parser
 * The HOLA timestamp grammar (docs/protocol.md §2): `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)`, an ISO 8601
 * date-time with a zone. Nothing looser (production's `Date.parse` accepts e.g. `-1`: a deviation).
 * The fraction may have 1 to 9 digits (ISO 8601 sets no count; clients in other languages emit 6);
 * only milliseconds count for freshness.
 */
/**
 * The grammar as a regular expression: the reference definition. The scanner below implements it
 * without captures or substrings (it is on every verify's path); a property test holds them equal.
 */
export const HOLA_TIMESTAMP_GRAMMAR: RegExp = Object.freeze(
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:(Z)|([+-])(\d{2}):(\d{2}))$/,
);

// prettier-ignore
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const DASH = 0x2d;
const COLON = 0x3a;

/** The ASCII digit at `i` as a number, or -1. */
function digitAt(text: string, i: number): number {
  const d = text.charCodeAt(i) - 0x30;
  return d >= 0 && d <= 9 ? d : -1;
}

/** Two ASCII digits at `i` as a number, or -1. */
function twoDigitsAt(text: string, i: number): number {
  const a = digitAt(text, i);
  const b = digitAt(text, i + 1);
  return a < 0 || b < 0 ? -1 : a * 10 + b;
}

/**
 * Unix milliseconds of a HOLA timestamp (uppercase `T`/`Z`), or null when it is not one. Reads `text`
 * from `start` to `end` (the whole string by default), so the parser can read it inside the line.
 */
export function parseHolaTimestamp(text: string, start = 0, end = text.length): number | null {
  if (end - start < 20 || end - start > 35) return null; // 2026-04-19T10:47:00Z … 9 fraction digits, ±HH:MM
  const s = start;
  const century = twoDigitsAt(text, s);
  const yearLow = twoDigitsAt(text, s + 2);
  const month = twoDigitsAt(text, s + 5);
  const day = twoDigitsAt(text, s + 8);
  const hour = twoDigitsAt(text, s + 11);
  const minute = twoDigitsAt(text, s + 14);
  const second = twoDigitsAt(text, s + 17);
  if (
    (century | yearLow | month | day | hour | minute | second) < 0 ||
    text.charCodeAt(s + 4) !== DASH ||
    text.charCodeAt(s + 7) !== DASH ||
    text.charCodeAt(s + 10) !== 0x54 /* T */ ||
    text.charCodeAt(s + 13) !== COLON ||
    text.charCodeAt(s + 16) !== COLON
  )
    return null;
  const year = century * 100 + yearLow;

  let pos = s + 19;
  let millis = 0;
  if (text.charCodeAt(pos) === 0x2e /* . */) {
    pos++;
    const fractionStart = pos;
    while (pos < end && digitAt(text, pos) >= 0) {
      if (pos - fractionStart < 3) millis = millis * 10 + digitAt(text, pos);
      pos++;
    }
    const digits = pos - fractionStart;
    if (digits < 1 || digits > 9) return null;
    for (let k = digits; k < 3; k++) millis *= 10; // ".5" is 500 ms
  }

  let offsetMinutes = 0;
  const zone = text.charCodeAt(pos);
  if (zone === 0x5a /* Z */) {
    if (pos + 1 !== end) return null;
  } else if (zone === 0x2b /* + */ || zone === DASH) {
    if (pos + 6 !== end || text.charCodeAt(pos + 3) !== COLON) return null;
    const offsetHours = twoDigitsAt(text, pos + 1);
    const offsetMins = twoDigitsAt(text, pos + 4);
    if (offsetHours < 0 || offsetMins < 0 || offsetHours > 23 || offsetMins > 59) return null;
    offsetMinutes = (zone === DASH ? -1 : 1) * (offsetHours * 60 + offsetMins);
  } else {
    return null;
  }

  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  if (day > DAYS_IN_MONTH[month - 1] + (month === 2 && isLeapYear(year) ? 1 : 0)) return null;
  const days = daysFromCivil(year, month, day);
  return ((days * 24 + hour) * 60 + minute - offsetMinutes) * 60_000 + second * 1000 + millis;
}

/**
 * Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil): plain arithmetic
 * in place of Date.UTC, which is a runtime call (and maps the years 0–99 to 1900–1999).
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
