/**
 * @module dn/dn.parser
 * The self-declared Distinguished Name of a passport (`metadata.userselected_dn`, resolutions §4):
 * comma-separated `Attr=Value` components; `\` escapes the next character, or `\XX` gives a byte in
 * hex (consecutive hex escapes are decoded together as UTF-8, as in RFC 4514).
 *
 * Decisions (where §4 is silent):
 * - The text is at most 2048 characters; longer, or malformed (a component without `=`, an attribute
 *   name outside `[A-Za-z][A-Za-z0-9-]*`, a dangling `\`, hex escapes that are not UTF-8) → null.
 *   A DN is self-declared decoration, so a bad one is dropped whole rather than half-read.
 * - Attribute names match case-insensitively (`creature` = `Creature`); the value is split at the
 *   first unescaped `=`, so values may contain `=` (URLs with queries). Unescaped whitespace around
 *   names and values is trimmed; escaped whitespace (`\ `) is kept. Empty components are skipped.
 * - `NNSWF` and `NSWF` (first occurrence each) make `displayName`, joined by one space in that order;
 *   with one of them present it alone is the display name. `Creature`, `AvatarURL`, `EmojiURL`: first
 *   occurrence, empty → null. `ContactURI` repeats; only values of the form `scheme:authority:identifier`
 *   (all three non-empty, scheme per RFC 3986) are listed in `contactUris`.
 * - Every component, known or not, stays in `attributes` in order, so nothing is lost.
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
  /** Every component in order, names as written. */
  readonly attributes: DnAttribute[];
}

const NAME_PATTERN = /^[A-Za-z][A-Za-z0-9-]*$/;
const CONTACT_URI_PATTERN = /^[A-Za-z][A-Za-z0-9+.-]*:[^:]+:.+$/s;
const HEX_PAIR = /^[0-9A-Fa-f]{2}$/;
const WHITESPACE = /\s/;

/** Parses a DN; null when absent, empty, too long or malformed (see the module doc). */
export function parseDn(text: unknown): ParsedDn | null {
  if (typeof text !== 'string' || text.length > DN_MAX_LENGTH) return null;
  const components = splitComponents(text);
  if (!components) return null;
  const attributes: DnAttribute[] = [];
  for (const component of components) {
    const attribute = parseComponent(component);
    if (attribute === 'empty') continue;
    if (!attribute) return null;
    attributes.push(attribute);
  }
  if (attributes.length === 0) return null;
  return describe(attributes);
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

/** Escapes `\`, `,`, `=` and leading/trailing whitespace of a value. */
export function escapeDnValue(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    const boundary = i === 0 || i === value.length - 1;
    if (c === '\\' || c === ',' || c === '=' || (boundary && WHITESPACE.test(c))) out += `\\${c}`;
    else out += c;
  }
  return out;
}

// --- Lexing: a component is a list of characters, each marked escaped or not. ---

interface Char {
  readonly c: string;
  readonly escaped: boolean;
}

/** Splits at unescaped commas and resolves escapes; null for a dangling `\` or non-UTF-8 hex bytes. */
function splitComponents(text: string): Char[][] | null {
  const components: Char[][] = [];
  let current: Char[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === ',') {
      components.push(current);
      current = [];
      i++;
    } else if (c === '\\') {
      if (HEX_PAIR.test(text.slice(i + 1, i + 3))) {
        // Gather a run of hex escapes: one multi-byte UTF-8 character may span several.
        const bytes: number[] = [];
        while (text[i] === '\\' && HEX_PAIR.test(text.slice(i + 1, i + 3))) {
          bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
          i += 3;
        }
        const decoded = fromUtf8(Uint8Array.from(bytes));
        if (decoded === null) return null;
        for (const ch of decoded) current.push({ c: ch, escaped: true });
      } else {
        if (i + 1 >= text.length) return null;
        current.push({ c: text[i + 1], escaped: true });
        i += 2;
      }
    } else {
      current.push({ c, escaped: false });
      i++;
    }
  }
  components.push(current);
  return components;
}

function parseComponent(chars: Char[]): DnAttribute | 'empty' | null {
  if (chars.every((ch) => !ch.escaped && WHITESPACE.test(ch.c))) return 'empty';
  const eq = chars.findIndex((ch) => ch.c === '=' && !ch.escaped);
  if (eq < 0) return null;
  const nameChars = trim(chars.slice(0, eq));
  if (nameChars.some((ch) => ch.escaped)) return null;
  const name = nameChars.map((ch) => ch.c).join('');
  if (!NAME_PATTERN.test(name)) return null;
  const value = trim(chars.slice(eq + 1))
    .map((ch) => ch.c)
    .join('');
  return { name, value };
}

function trim(chars: Char[]): Char[] {
  let start = 0;
  let end = chars.length;
  while (start < end && !chars[start].escaped && WHITESPACE.test(chars[start].c)) start++;
  while (end > start && !chars[end - 1].escaped && WHITESPACE.test(chars[end - 1].c)) end--;
  return chars.slice(start, end);
}

// --- Interpretation ---

function describe(attributes: DnAttribute[]): ParsedDn {
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
  };
}

/** `scheme:authority:identifier`, each part non-empty (the identifier may contain further colons). */
export function isContactUri(value: string): boolean {
  return CONTACT_URI_PATTERN.test(value);
}
