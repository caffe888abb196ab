/**
 * `expectErrorEnvelope(res, code)`: asserts the ErrorResponse envelope of the spec exactly: the code,
 * its catalogue status and message, a request id equal to the `X-Request-Id` header, an ISO
 * timestamp, and no fields besides `error`, `requestId`, `timestamp`.
 */
import { describeError } from '@passport/core';

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
  const descriptor = describeError(code);
  expect(descriptor).toBeDefined();
  expect(res.status).toBe(descriptor!.status);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.details === null || typeof body.error.details === 'object').toBe(true);
  expect(body.requestId).toBe(res.headers.get('x-request-id'));
  expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return body;
}
