/**
 * @module profile/profile-links
 * What the sanitised public profile keeps of the self-declared text and links. A profile is shown by
 * pages, terminals and agents that render names, avatars and contact links, and its values come from
 * the passport holder (a DN's `\XX` escapes write any byte): so
 * - names (`displayName`, `creature`) keep their characters except those that rewrite how text is shown
 *   or hide text (controls such as CR, LF, ESC and NUL, lone surrogates, line separators, format
 *   characters: bidi controls, zero-width spaces, tag characters), each replaced by U+FFFD; the
 *   zero-width joiner and non-joiner stay (emoji sequences, several scripts);
 * - the image and webhook URLs are kept only as absolute http(s) URLs written without controls,
 *   whitespace, bidi controls or credentials (`user:pass@`);
 * - contact URIs of the schemes a browser runs or reads locally (`javascript:`, `vbscript:`, `data:`,
 *   `file:`, `blob:`…) or that open local programs or remote shares (`search-ms:`, `ms-…:`), or holding
 *   those characters, are left out.
 * The full identity (JWT) still shows the DN as written.
 */

import { webhookUrlOf } from '../webhook/webhook-target.js';

/** Schemes a browser executes or reads from the local machine when a link is followed or rendered. */
const UNSAFE_SCHEMES: ReadonlySet<string> = new Set([
  'javascript',
  'vbscript',
  'data',
  'file',
  'blob',
  'filesystem',
  'jar',
  // Handlers that open local programs or remote shares when a link is followed (search-ms: reaches a
  // remote share, ms-msdt: is the Follina handler); every `ms-…` scheme is left out too.
  'search',
  'search-ms',
  'shell',
  'smb',
  'intent',
  // Help and archive viewers, browsers and editors opened by a link, directory and file-share
  // protocols, app installers.
  'hcp',
  'its',
  'mk',
  'mhtml',
  'res',
  'view-source',
  'about',
  'chrome',
  'microsoft-edge',
  'vscode',
  'vscode-insiders',
  'ldap',
  'ldaps',
  'nfs',
  'afp',
  'webdav',
  'itms-services',
]);

/**
 * Characters that change how the text around them is shown or hide text in it, each replaced by U+FFFD:
 * controls, lone surrogates, line and paragraph separators, format characters and every default-
 * ignorable code point (bidi controls, zero-width spaces, soft hyphens, tag characters, fillers,
 * unassigned ignorables), and the braille blank; except a single zero-width joiner or non-joiner
 * (emoji sequences, several scripts) and an emoji's U+FE0F. Tag characters and runs of zero-width
 * joiners carry text invisible to a reader but not to an LLM agent reading the listing. The joiners
 * and U+FE0F are written as alternatives, not inside a
 * character class, where a reader would take them for part of a joined sequence (and lint refuses them).
 */
const DISPLAY_CONTROL =
  /(?!\u200c|\u200d|\ufe0f)[\p{Cc}\p{Cs}\p{Cf}\p{Default_Ignorable_Code_Point}\u2028\u2029\u2800]|(?:\u200c|\u200d){2,}/u;
const DISPLAY_CONTROL_ALL = new RegExp(DISPLAY_CONTROL.source, 'gu');
/**
 * Variation selectors, removed rather than replaced: without one a character shows in its default
 * form, and each one can carry a hidden byte (one ideographic variation selector per ideograph can
 * hide "Ignore previous instructions"). Only an emoji's U+FE0F after a character of its own
 * stays, so that emoji keep their colour form.
 */
const VARIATION_SELECTOR_ALL =
  /[\ufe00-\ufe0e]|[\u180b-\u180d]|\u180f|[\u{e0100}-\u{e01ef}]|(?<=^|[\p{Default_Ignorable_Code_Point}\p{Cf}])\ufe0f/gu;

/**
 * More combining marks on one character than any script writes (stacked "Zalgo" text hides what is
 * under it); zero-width joiners between them do not break the run.
 */
const MARK_RUN = /((?:\p{M}(?:\u200c|\u200d)*){8})(?:\p{M}|\u200c|\u200d)+/gu;

/**
 * A self-declared name as it may be shown: display controls replaced by U+FFFD, runs of combining
 * marks cut to 8; null stays null.
 */
export function profileText(value: string | null | undefined): string | null {
  if (typeof value !== 'string') return null;
  const plain = value.replace(VARIATION_SELECTOR_ALL, '');
  const shown = DISPLAY_CONTROL.test(plain) ? plain.replace(DISPLAY_CONTROL_ALL, '\ufffd') : plain;
  return shown.replace(MARK_RUN, '$1');
}

/**
 * `value` (trimmed) when it is an absolute http: or https: URL without display controls, whitespace
 * or credentials, else null.
 */
export function webUrlOrNull(value: string | null | undefined): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  // The URL parser forgives what a browser forgives (leading controls, backslashes, tabs and newlines
  // anywhere): ask it, then require the scheme to be written as http(s) at the start, so "//host" or
  // " javascript:" never pass, and nothing it would silently drop or re-encode.
  if (!/^https?:\/\//i.test(trimmed) || /\s/.test(trimmed) || DISPLAY_CONTROL.test(trimmed)) return null;
  try {
    const { protocol, username, password, href } = new URL(trimmed);
    if (username !== '' || password !== '') return null;
    if (protocol !== 'http:' && protocol !== 'https:') return null;
    // A host written in other scripts is shown as the URL parser reads it (punycode, `xn--…`): a
    // Cyrillic "раураl.com" looks like another site. URLs with an ASCII host stay as written.
    const authority = trimmed.slice(trimmed.indexOf('//') + 2).split(/[/?#]/, 1)[0];
    // An empty userinfo (`https://@host`) is still one: the URL parser reports no username for it. A
    // backslash is a slash to the parser, not to a reader: `https://evil.example\@bank.example/` reads as
    // bank.example and goes to evil.example (a probe); in the authority it is refused, further on the URL
    // is shown as the parser reads it (what is shown is where it goes).
    if (authority.includes('@') || authority.includes('\\')) return null;
    return /[^\x21-\x7e]/.test(authority) || trimmed.includes('\\') ? href : trimmed;
  } catch {
    return null;
  }
}

/** Whether a contact URI (`scheme:authority:identifier`) may be shown as a link. */
function isUnsafeScheme(scheme: string): boolean {
  return UNSAFE_SCHEMES.has(scheme) || scheme.startsWith('ms-') || scheme.startsWith('x-apple');
}

export function isSafeContactUri(uri: string): boolean {
  const colon = uri.indexOf(':');
  return colon > 0 && !DISPLAY_CONTROL.test(uri) && !isUnsafeScheme(uri.slice(0, colon).trim().toLowerCase());
}

/**
 * `webhook_url` as the webhook sender reads it (`webhookUrlOf`: a bare host or host:port is https; a
 * leading slash, a scheme without `//` or whitespace inside is none), kept as `webUrlOrNull` keeps a URL. The public profile and the DID
 * document show the same (not `"12"` null in one and `https://12` in the other).
 */
export function webhookUrlOrNull(value: string | null | undefined): string | null {
  return webUrlOrNull(webhookUrlOf(value));
}

/**
 * Characters that carry text a reader does not see (format characters, every default-ignorable code point:
 * tag characters, variation selectors, zero-width ones; the braille blank), for data that is kept as data
 * (line breaks and tabs stay, so JSON written across lines stays JSON).
 */
const HIDDEN_TEXT = /[\p{Cf}\p{Default_Ignorable_Code_Point}\u2800]/u;

/** Whether `value` holds a character that carries hidden text (or any control). */
export function hasHiddenText(value: string): boolean {
  return HIDDEN_TEXT.test(value) || /\p{Cc}/u.test(value);
}

/**
 * The characters `hiddenTextReplaced` replaces: those carrying hidden text, and every control but the
 * line breaks and tabs data keeps (LF, CR before LF, TAB): ESC, BEL, NUL, a lone CR and the C1 controls
 * drive terminals (`\u001b]0;pwned\u0007` would reach the DID document whole); the Unicode line
 * and paragraph separators, private-use characters (invisible in most fonts) and lone surrogates too.
 */
const REPLACED_IN_DATA = new RegExp(
  `${HIDDEN_TEXT.source}|[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\u2028\\u2029\\p{Co}\\p{Cs}]|\\r(?!\\n)`,
  'u',
);
const REPLACED_IN_DATA_ALL = new RegExp(REPLACED_IN_DATA.source, 'gu');

/** `value` with each character that carries hidden text or drives a terminal replaced by U+FFFD; line breaks and tabs kept. */
export function hiddenTextReplaced(value: string): string {
  return REPLACED_IN_DATA.test(value) ? value.replace(REPLACED_IN_DATA_ALL, '\ufffd') : value;
}
