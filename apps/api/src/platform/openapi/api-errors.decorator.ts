/**
 * `@ApiErrors(...codes)`: documents the error responses of an operation from the error catalogues
 * (the core's and the app's). Codes are grouped by their status (`platform/http/http-status.table.ts`); each status gets the ErrorResponse schema
 * with exactly those codes. Use `PREFIX_*` for dynamic codes (`LOGIN_MODE_POLICY_REJECTED_*`).
 * Cross-cutting errors (size limits, rate limit, 500, and for bodies 415/INVALID_JSON) are added to
 * every operation by `OpenApiDocumentService`, so they need not be listed.
 */
import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { httpStatusOf } from '../http/http-status.table.js';
import { errorResponseSchema } from './error-response.schema.js';

export function statusOfCode(code: string): number {
  const status = httpStatusOf(code.endsWith('_*') ? code.slice(0, -2) : code);
  if (status === undefined) throw new TypeError(`@ApiErrors: ${code} is not in the error catalogue`);
  return status;
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
