/**
 * @module codecs/url-for-message
 * A URL quoted in an error message (a refused setting, a refused flag) goes to logs and terminals: its
 * userinfo (a password), query and fragment (an API key) are left out, also when the text is no URL at
 * all, and what is left is printable and bounded.
 */
import { printableText } from './printable-text.js';

const SCHEME_PREFIX = /^[A-Za-z][A-Za-z0-9+.-]*:[/\\]*/;

/** `raw` without anything before its last `@` (after its scheme) nor after its first `?` or `#`, printable, at most `maxLength` units. */
export function urlForMessage(raw: string, maxLength = 200): string {
  const end = raw.search(/[?#]/);
  let head = end === -1 ? raw : raw.slice(0, end);
  const tail = end === -1 ? '' : `${raw[end]}…`;
  const at = head.lastIndexOf('@');
  if (at !== -1) head = `${SCHEME_PREFIX.exec(head)?.[0] ?? ''}…${head.slice(at)}`;
  return printableText(head + tail, maxLength);
}
