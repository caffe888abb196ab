/**
 * @module codecs/printable-text
 * Text that is shown as it is (a log line, a terminal, an admin page) must not rewrite or hide how it
 * is shown: no controls (NUL, ESC and the ANSI/OSC sequences it starts, newlines), no lone surrogates
 * (stored as U+FFFD, so what is read back differs), no line or paragraph separators, no format
 * characters (bidi overrides and marks, zero-width characters). A DN is not such text: its names may
 * hold a zero-width joiner (emoji sequences), so the DN rules are their own.
 */

const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/u;
const UNPRINTABLE_ALL = /[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/gu;

/** Whether `text` holds a character that is not printable text. */
export function hasUnprintable(text: string): boolean {
  return UNPRINTABLE.test(text);
}

/**
 * `text` with each character that is not printable text replaced by `?`, cut to at most `maxLength`
 * UTF-16 units, never between the two halves of a pair (a plain cut can leave a lone surrogate).
 */
export function printableText(text: string, maxLength: number): string {
  const cut = text.replace(UNPRINTABLE_ALL, '?').slice(0, maxLength);
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
}
