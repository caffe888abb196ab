/**
 * @module codecs/url-for-message
 * A URL quoted in an error message (a refused setting, a refused flag) goes to logs and terminals: its
 * userinfo (a password), query and fragment (an API key) are left out, also when the text is no URL at
 * all, and what is left is printable and bounded.
 */
import { printableText } from './printable-text.js';

// A scheme only when slashes follow it: in `user:password@host` the user is no scheme (a review).
const SCHEME_PREFIX = /^[A-Za-z][A-Za-z0-9+.-]*:[/\\]+/;

/**
 * `raw` without anything between its scheme and its last `@` (a password may hold `?`, `#` or `/`, which
 * is what makes such a URL unparsable and so quoted), nor after the first `?` or `#` that follows; printable,
 * at most `maxLength` units. An `@` in a path or query hides the host too: the message loses a little, the
 * secret nothing.
 */
export function urlForMessage(raw: string, maxLength = 200): string {
  const prefix = SCHEME_PREFIX.exec(raw)?.[0] ?? '';
  let rest = raw.slice(prefix.length);
  const at = rest.lastIndexOf('@');
  if (at !== -1) rest = `…${rest.slice(at)}`;
  const end = rest.search(/[?#]/);
  if (end !== -1) rest = `${rest.slice(0, end + 1)}…`;
  return printableText(prefix + rest, maxLength);
}
