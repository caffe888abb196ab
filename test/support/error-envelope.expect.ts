/**
 * `expectErrorEnvelope(res, code)`: asserts the ErrorResponse envelope of the spec exactly: the code,
 * its status (the app's status table) and a message, a request id equal to the `X-Request-Id` header, an ISO
 * timestamp, no fields besides `error`, `requestId`, `timestamp`, and `Cache-Control: no-store`.
 */
import { httpStatusOf } from '../../apps/api/src/platform/http/http-status.table.js';

export interface EnvelopeBody {
  error: { code: string; message: string; details: Record<string, unknown> | null };
  requestId: string;
  timestamp: string;
}

export function expectErrorEnvelope(
  res: { status: number; headers: Headers; body: unknown },
  code: string,
): EnvelopeBody {
  const body = res.body as EnvelopeBody;
  expect(typeof body).toBe('object');
  expect(Object.keys(body).sort()).toEqual(['error', 'requestId', 'timestamp']);
  expect(body.error.code).toBe(code);
  const status = httpStatusOf(code);
  expect(status).toBeDefined();
  expect(res.status).toBe(status);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.details === null || typeof body.error.details === 'object').toBe(true);
  expect(body.requestId).toBe(res.headers.get('x-request-id'));
  expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  // An error answers one request: no cache keeps it.
  expect(res.headers.get('cache-control')).toBe('no-store');
  return body;
}

/**
 * A verify refused while a store's replay records are held after a data loss: the 503 envelope, never a
 * verdict, with `Retry-After` (1 .. `holdSeconds`) equal to `details.retryAfterSeconds`.
 */
export function expectRecordingHeld(
  res: { status: number; headers: Headers; body: unknown },
  holdSeconds: number,
): void {
  const body = expectErrorEnvelope(res, 'REPLAY_STORE_UNAVAILABLE');
  expect((res.body as { verified?: unknown }).verified).toBeUndefined();
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(holdSeconds);
  expect(body.error.details?.retryAfterSeconds).toBe(retryAfter);
}
