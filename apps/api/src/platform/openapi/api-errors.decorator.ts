/**
 * `@ApiErrors(...codes)`: documents the error responses of an operation from the core's error
 * catalogue. Codes are grouped by their catalogue status; each status gets the ErrorResponse schema
 * with exactly those codes. Use `PREFIX_*` for dynamic codes (`LOGIN_MODE_POLICY_REJECTED_*`).
 * Cross-cutting errors (size limits, rate limit, 500, and for bodies 415/INVALID_JSON) are added to
 * every operation by `OpenApiDocumentService`, so they need not be listed.
 */
import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { describeError } from '@passport/core';
import { errorResponseSchema } from './error-response.schema.js';

export function statusOfCode(code: string): number {
  const descriptor = describeError(code.endsWith('_*') ? code.slice(0, -2) : code);
  if (!descriptor) throw new TypeError(`@ApiErrors: ${code} is not in the error catalogue`);
  return descriptor.status;
}

export function ApiErrors(...codes: string[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, string[]>();
  for (const code of codes) {
    const status = statusOfCode(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return applyDecorators(
    ...[...byStatus.entries()].map(([status, list]) =>
      ApiResponse({ status, description: `Error: ${list.join(', ')}`, schema: errorResponseSchema(list) }),
    ),
  );
}
