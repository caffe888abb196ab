/**
 * `expectErrorEnvelope(res, code)`: asserts the ErrorResponse envelope of the spec exactly: the code,
 * its status (the app's status table) and a message, a request id equal to the `X-Request-Id` header, an ISO
 * timestamp, and no fields besides `error`, `requestId`, `timestamp`.
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
  return body;
}
