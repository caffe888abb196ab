/**
 * @module hola/hola-timestamp
 * The HOLA timestamp grammar (resolutions §2): `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)`, an ISO 8601
 * date-time with a zone. Nothing looser (production's `Date.parse` accepts e.g. `-1`: a deviation).
 * The fraction may have 1 to 9 digits (ISO 8601 sets no count; clients in other languages emit 6);
 * only milliseconds count for freshness.
 */
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:(Z)|([+-])(\d{2}):(\d{2}))$/;

// prettier-ignore
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const YEARS_400_MS = 146_097 * 86_400_000;

/** Unix milliseconds of a HOLA timestamp (uppercase `T`/`Z`), or null when it is not one. */
export function parseHolaTimestamp(text: string): number | null {
  const m = TIMESTAMP.exec(text);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  if (day > DAYS_IN_MONTH[month - 1] + (month === 2 && isLeapYear(year) ? 1 : 0)) return null;
  const millis = m[7] ? Number(m[7].padEnd(3, '0').slice(0, 3)) : 0;
  let offsetMinutes = 0;
  if (!m[8]) {
    const offsetHours = Number(m[10]);
    const offsetMins = Number(m[11]);
    if (offsetHours > 23 || offsetMins > 59) return null;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  // Date.UTC maps years 0–99 to 1900–1999; shifting by 400 years (exactly 146097 days) avoids that.
  const early = year < 100;
  const utcMs =
    Date.UTC(early ? year + 400 : year, month - 1, day, hour, minute, second, millis) -
    (early ? YEARS_400_MS : 0);
  return utcMs - offsetMinutes * 60_000;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
