/**
 * @module federation/api-url
 * Comparing API URLs (`subjectuniqueidentifier_url`, `PUBLIC_BASE_URL`, `iss`): scheme, host and
 * port as the URL standard normalises them (case, default ports), and the path without trailing
 * slashes. Query and fragment are not part of an API's identity. Non-URLs compare as trimmed text.
 */
import { withoutTrailing } from '../codecs/trailing.js';

export function normalizeApiUrl(value: string): string {
  const text = value.trim();
  try {
    const url = new URL(text);
    return `${url.protocol}//${url.host}${withoutTrailing(url.pathname, '/')}`;
  } catch {
    return text;
  }
}

export function sameApiUrl(a: string, b: string): boolean {
  return normalizeApiUrl(a) === normalizeApiUrl(b);
}

/**
 * Whether `value` is an absolute http(s) URL written plainly: `http://` or `https://` at the start, no
 * whitespace or control inside, no credentials (the URL parser forgives `https:host`, `https:\\host` and
 * tabs, which could otherwise be signed as a passport's home API); as the profile keeps a URL (`webUrlOrNull`).
 */
export function isHttpUrl(value: string): boolean {
  const text = value.trim();
  if (!/^https?:\/\/[^/\\]/i.test(text) || /[\s\p{Cc}\p{Cf}]/u.test(text)) return false;
  try {
    const url = new URL(text);
    return (
      url.username === '' && url.password === '' && (url.protocol === 'http:' || url.protocol === 'https:')
    );
  } catch {
    return false;
  }
}

/**
 * A deployment's base URL (`PUBLIC_BASE_URL`, the CLI's `--public-url`) in its one spelling: an http(s)
 * URL as `isHttpUrl` takes it, without query or fragment (not even a bare `?` or `#`), normalised by the
 * URL standard (scheme and host lower case, default port and dot segments gone) and without a trailing
 * slash; null for anything else. The server and the CLI read it alike, so an offline DID document names
 * the endpoints the server serves.
 */
export function normalizedBaseUrl(value: string): string | null {
  if (!isHttpUrl(value) || /[?#]/.test(value)) return null;
  return withoutTrailing(new URL(value.trim()).toString(), '/');
}

/** True for a non-empty string (the spec's test for "a federated token"). */
export function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}
