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

/** Whether `value` is an absolute http: or https: URL. */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value.trim());
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** True for a non-empty string (the spec's test for "a federated token"). */
export function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}
