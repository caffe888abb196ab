/**
 * @module hola/hola-timestamp
 * The HOLA timestamp grammar (resolutions §2): `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)`, an ISO 8601
 * date-time with a zone. Nothing looser (production's `Date.parse` accepts e.g. `-1`: a deviation).
 * The fraction may have 1 to 9 digits (ISO 8601 sets no count; clients in other languages emit 6);
 * only milliseconds count for freshness.
 */
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:(Z)|([+-])(\d{2}):(\d{2}))$/;

/** Unix milliseconds of a HOLA timestamp (uppercase `T`/`Z`), or null when it is not one. */
export function parseHolaTimestamp(text: string): number | null {
  const m = TIMESTAMP.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const daysInMonth =
    new Date(Date.UTC(2000, month, 0)).getUTCDate() + (month === 2 && !isLeapYear(year) ? -1 : 0);
  if (day > daysInMonth) return null;
  const millis = m[7] ? Number(m[7].padEnd(3, '0').slice(0, 3)) : 0;
  let offsetMinutes = 0;
  if (!m[8]) {
    const offsetHours = Number(m[10]);
    const offsetMins = Number(m[11]);
    if (offsetHours > 23 || offsetMins > 59) return null;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day); // setUTCFullYear keeps years 0–99 literal (Date.UTC does not)
  utc.setUTCHours(hour, minute, second, millis);
  return utc.getTime() - offsetMinutes * 60_000;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
