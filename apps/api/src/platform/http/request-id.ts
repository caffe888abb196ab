/**
 * The correlation id of a request (docs/protocol.md §5): `X-Request-Id`, else `X-Correlation-Id`, else a new
 * ULID. A supplied id that is longer than 128 characters or uses characters outside `[A-Za-z0-9._:-]`
 * is replaced by a new ULID, so that hostile values never reach logs or response headers.
 */
import { newRequestUlid } from './request-ulid.js';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function isSafeRequestId(value: unknown): value is string {
  return typeof value === 'string' && SAFE_REQUEST_ID.test(value);
}

type HeaderValue = string | string[] | undefined;

/** Picks the request id from the incoming headers (names lowercase, as Node gives them). */
export function resolveRequestId(headers: Readonly<Record<string, HeaderValue>>): string {
  const supplied = first(headers['x-request-id']) ?? first(headers['x-correlation-id']);
  return isSafeRequestId(supplied) ? supplied : newRequestUlid();
}

function first(value: HeaderValue): string | undefined {
  // A repeated header arrives as an array (or joined with ", " by Node): neither is a single safe id.
  if (Array.isArray(value)) return value.length === 1 ? value[0] : value.join(', ');
  return value === undefined || value === '' ? undefined : value;
}
