/**
 * @module profile/profile-links
 * What the sanitised public profile keeps of the self-declared links. A profile is shown by pages and
 * agents that render avatars and contact links, and its values come from the passport holder: so the
 * image and webhook URLs are kept only as absolute http(s) URLs, and contact URIs of the schemes a
 * browser runs or reads locally (`javascript:`, `vbscript:`, `data:`, `file:`, `blob:`) are left out.
 * The full identity (JWT) still shows the DN as written.
 */

/** Schemes a browser executes or reads from the local machine when a link is followed or rendered. */
const UNSAFE_SCHEMES: ReadonlySet<string> = new Set(['javascript', 'vbscript', 'data', 'file', 'blob']);

/** `value` when it is an absolute http: or https: URL, else null. */
export function webUrlOrNull(value: string | null | undefined): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  // The URL parser forgives what a browser forgives (leading controls, backslashes): ask it, then
  // require the scheme to be written as http(s) at the start, so "//host" or " javascript:" never pass.
  if (!/^https?:\/\//i.test(trimmed)) return null;
  try {
    const { protocol } = new URL(trimmed);
    return protocol === 'http:' || protocol === 'https:' ? trimmed : null;
  } catch {
    return null;
  }
}

/** Whether a contact URI (`scheme:authority:identifier`) may be shown as a link. */
export function isSafeContactUri(uri: string): boolean {
  const colon = uri.indexOf(':');
  return colon > 0 && !UNSAFE_SCHEMES.has(uri.slice(0, colon).trim().toLowerCase());
}
