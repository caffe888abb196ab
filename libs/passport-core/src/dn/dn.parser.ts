/**
 * @module dn/dn.parser
 * The self-declared Distinguished Name of a passport (`metadata.userselected_dn`): comma-separated
 * `Attr=Value` components; `\\` escapes the next character, or `\\XX` gives a byte in hex (consecutive
 * hex escapes are decoded together as UTF-8, as in RFC 4514); a value may be double-quoted
 * (`NNSWF="Smith, John"`), inside which commas are plain text, as real passports write them.
 *
 * Decisions:
 * - The text is at most 2048 characters; longer → null. A DN is self-declared decoration, so a
 *   component the parser cannot read (no `=`, a name outside letters/digits/`_`/`.`/`-`, a dangling
 *   `\\`, hex escapes that are not UTF-8) is set aside in `unparsed`, as written, and the rest still
 *   reads: one odd component never loses the holder's name. Only a DN with no readable component is null.
 * - Attribute names match case-insensitively (`creature` = `Creature`); the value is split at the
 *   first unescaped `=`, so values may contain `=` (URLs with queries). Unescaped whitespace around
 *   names and values is trimmed; escaped whitespace (`\\ `) and everything between quotes is kept.
 *   A quote opens a quoted value only where a value starts and when a closing quote ends that value (the
 *   next unescaped quote, followed only by whitespace and a comma or the end); any other quote is an
 *   ordinary character. Empty components are skipped.
 * - `NNSWF` and `NSWF` (first occurrence each) make `displayName`, joined by one space in that order;
 *   with one of them present it alone is the display name. `Creature`, `AvatarURL`, `EmojiURL`: first
 *   occurrence, empty → null. `ContactURI` repeats; only values of the form `scheme:authority:identifier`
 *   (all three non-empty, scheme per RFC 3986) are listed in `contactUris`.
 * - Every readable component, known or not (`webhook_url=…`, `Team=…`), stays in `attributes` in order.
 */
import { fromUtf8 } from '../codecs/utf8.codec.js';

export const DN_MAX_LENGTH = 2048;

export interface DnAttribute {
  readonly name: string;
  readonly value: string;
}

export interface ParsedDn {
  readonly displayName: string | null;
  readonly nnswf: string | null;
  readonly nswf: string | null;
  readonly creature: string | null;
  readonly avatarUrl: string | null;
  readonly emojiUrl: string | null;
  readonly contactUris: string[];
  /** Every readable component in order, names as written. */
  readonly attributes: DnAttribute[];
  /** Components that could not be read, as written (trimmed); empty when the whole DN parsed. */
  readonly unparsed: string[];
}

/**
 * Letters, digits, `-` and `_` (docs/protocol.md §4: a leading `-` too; an audit found `-Team` set aside), and
 * `.` after the first character (dotted OIDs such as `2.5.4.3`).
 */
const NAME_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;
const CONTACT_URI_PATTERN = /^[A-Za-z][A-Za-z0-9+.-]*:[^:]+:.+$/s;
const HEX_PAIR = /^[0-9A-Fa-f]{2}$/;
const WHITESPACE = /\s/;

/**
 * Parses a DN; null when absent, too long, or without one readable component (see the module doc). The
 * values are the chain's, unchecked: a display name may hide or reorder text, an avatar or contact may be
 * a `javascript:` link. To show an identity, use `buildPublicProfile`, which cleans both.
 */
export function parseDn(text: unknown): ParsedDn | null {
  if (typeof text !== 'string' || text.length > DN_MAX_LENGTH) return null;
  const attributes: DnAttribute[] = [];
  const unparsed: string[] = [];
  for (const raw of splitComponents(text)) {
    if (raw.trim() === '') continue;
    const attribute = parseComponent(raw);
    if (attribute) attributes.push(attribute);
    else unparsed.push(raw.trim());
  }
  if (attributes.length === 0) return null;
  return describe(attributes, unparsed);
}

/** True when the DN parses with every component read (what `passport mint --dn` checks). */
export function isDnFullyParsed(text: unknown): boolean {
  const dn = parseDn(text);
  return dn !== null && dn.unparsed.length === 0;
}

/** Writes attributes as a DN that `parseDn` reads back to the same attributes (names must be valid). */
export function formatDn(attributes: readonly DnAttribute[]): string {
  return attributes
    .map(({ name, value }) => {
      if (!NAME_PATTERN.test(name))
        throw new RangeError(`invalid DN attribute name: ${JSON.stringify(name)}`);
      return `${name}=${escapeDnValue(value)}`;
    })
    .join(',');
}

/** Escapes `\\`, `,`, `=`, `"` and leading/trailing whitespace of a value. */
export function escapeDnValue(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    const boundary = i === 0 || i === value.length - 1;
    if (c === '\\' || c === ',' || c === '=' || c === '"' || (boundary && WHITESPACE.test(c)))
      out += `\\${c}`;
    else out += c;
  }
  return out;
}

// --- Lexing ---

/**
 * Splits at commas that are not escaped and not inside a quoted value. A quote opens a quoted value only
 * where a value starts (after the component's first unescaped `=` and any whitespace) and when a closing
 * quote follows; anywhere else it is a plain character: an inch mark (`Height=5'11"`) never quotes the
 * components after it (an audit: `Height=5'11",NNSWF=Ada,…,Reach=70"` read as one attribute, the name lost).
 */
function splitComponents(text: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let seenEquals = false;
  let valueStarted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') {
      i++;
      valueStarted ||= seenEquals;
    } else if (c === ',') {
      parts.push(text.slice(start, i));
      start = i + 1;
      seenEquals = false;
      valueStarted = false;
    } else if (!seenEquals) {
      seenEquals = c === '=';
    } else if (!valueStarted && WHITESPACE.test(c)) {
      // whitespace before the value
    } else {
      if (!valueStarted && c === '"') i = closingQuote(text, i) ?? i;
      valueStarted = true;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/**
 * The index of the unescaped quote closing the one at `open`, or null when none follows. A quoted value is
 * the whole value: its closing quote, the next unescaped one, is followed only by whitespace and then a
 * comma or the end; otherwise the opening quote is text (a quote inside a later value closes nothing).
 */
function closingQuote(text: string, open: number): number | null {
  for (let i = open + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') {
      let next = i + 1;
      while (next < text.length && WHITESPACE.test(text[next])) next++;
      return next === text.length || text[next] === ',' ? i : null;
    }
  }
  return null;
}

interface Char {
  readonly c: string;
  readonly escaped: boolean;
}

/** Resolves escapes; null for a dangling `\\` or hex bytes that are not UTF-8. */
function decode(raw: string): Char[] | null {
  const chars: Char[] = [];
  let i = 0;
  while (i < raw.length) {
    if (raw[i] !== '\\') {
      chars.push({ c: raw[i], escaped: false });
      i++;
    } else if (HEX_PAIR.test(raw.slice(i + 1, i + 3))) {
      // Gather a run of hex escapes: one multi-byte UTF-8 character may span several.
      const bytes: number[] = [];
      while (raw[i] === '\\' && HEX_PAIR.test(raw.slice(i + 1, i + 3))) {
        bytes.push(parseInt(raw.slice(i + 1, i + 3), 16));
        i += 3;
      }
      const decoded = fromUtf8(Uint8Array.from(bytes));
      if (decoded === null) return null;
      for (const ch of decoded) chars.push({ c: ch, escaped: true });
    } else {
      if (i + 1 >= raw.length) return null;
      chars.push({ c: raw[i + 1], escaped: true });
      i += 2;
    }
  }
  return chars;
}

function parseComponent(raw: string): DnAttribute | null {
  const chars = decode(raw);
  if (!chars) return null;
  const eq = chars.findIndex((ch) => ch.c === '=' && !ch.escaped);
  if (eq < 0) return null;
  const nameChars = trim(chars.slice(0, eq));
  if (nameChars.some((ch) => ch.escaped)) return null;
  const name = nameChars.map((ch) => ch.c).join('');
  if (!NAME_PATTERN.test(name)) return null;
  let valueChars = trim(chars.slice(eq + 1));
  const isQuote = (ch: Char | undefined) => ch !== undefined && ch.c === '"' && !ch.escaped;
  // Quoted only when the closing quote is the first one after the opening (splitComponents' rule).
  if (
    valueChars.length >= 2 &&
    isQuote(valueChars[0]) &&
    isQuote(valueChars[valueChars.length - 1]) &&
    !valueChars.slice(1, -1).some(isQuote)
  )
    valueChars = valueChars.slice(1, -1);
  return { name, value: valueChars.map((ch) => ch.c).join('') };
}

function trim(chars: Char[]): Char[] {
  let start = 0;
  let end = chars.length;
  while (start < end && !chars[start].escaped && WHITESPACE.test(chars[start].c)) start++;
  while (end > start && !chars[end - 1].escaped && WHITESPACE.test(chars[end - 1].c)) end--;
  return chars.slice(start, end);
}

// --- Interpretation ---

function describe(attributes: DnAttribute[], unparsed: string[]): ParsedDn {
  const first = (name: string): string | null => {
    const found = attributes.find((a) => a.name.toLowerCase() === name);
    return found && found.value !== '' ? found.value : null;
  };
  const nnswf = first('nnswf');
  const nswf = first('nswf');
  const names = [nnswf, nswf].filter((n): n is string => n !== null);
  return {
    displayName: names.length > 0 ? names.join(' ') : null,
    nnswf,
    nswf,
    creature: first('creature'),
    avatarUrl: first('avatarurl'),
    emojiUrl: first('emojiurl'),
    contactUris: attributes
      .filter((a) => a.name.toLowerCase() === 'contacturi' && isContactUri(a.value))
      .map((a) => a.value),
    attributes,
    unparsed,
  };
}

/** `scheme:authority:identifier`, each part non-empty (the identifier may contain further colons). */
export function isContactUri(value: string): boolean {
  return CONTACT_URI_PATTERN.test(value);
}
