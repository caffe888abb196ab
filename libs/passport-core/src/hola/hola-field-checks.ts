/**
 * @module hola/hola-field-checks
 * Character-class checks of HOLA fields, written as loops rather than regular expressions: on the
 * verify path each regular expression is a separate native routine, and run between two signature
 * checks the four of them cost ~3x their own time (parse+verify went from 0.94 to 0.98 of a bare
 * verify when they were replaced). Each doc comment gives the expression it equals; the parser's
 * spec holds them equal on random strings.
 *
 * Each check reads `text` from `start` (inclusive) to `end` (exclusive), the whole string by default,
 * so that the parser can check a field in place without cutting it out of the line first.
 */

/** `^[A-Z]{12}$` */
export function isUpperTokenId(text: string, start = 0, end = text.length): boolean {
  if (end - start !== 12) return false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x41 || c > 0x5a) return false;
  }
  return true;
}

/** `^[0-9A-F]+$` */
export function isUpperHex(text: string, start = 0, end = text.length): boolean {
  if (end <= start) return false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46))) return false;
  }
  return true;
}

/** `^\d{10,}$` (Unix milliseconds, or seconds with 10+ digits) */
export function isUnixMillis(text: string, start = 0, end = text.length): boolean {
  if (end - start < 10) return false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/** `^[A-Z2-7]*=*$`: base32 characters, then optional trailing padding. */
export function isPaddedBase32(text: string, start = 0, end = text.length): boolean {
  let i = start;
  for (; i < end; i++) {
    const c = text.charCodeAt(i);
    if (!((c >= 0x41 && c <= 0x5a) || (c >= 0x32 && c <= 0x37))) break;
  }
  for (; i < end; i++) if (text.charCodeAt(i) !== 0x3d) return false;
  return true;
}
