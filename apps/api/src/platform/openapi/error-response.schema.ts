/**
 * OpenAPI schemas of the ErrorResponse envelope. Each documented error response lists the exact codes
 * an operation can answer with at that status (an `enum`, plus a `pattern` for the catalogue's dynamic
 * prefixes such as `LOGIN_MODE_POLICY_REJECTED_*`), so clients and the contract tests can rely on them.
 */
import { type SchemaObject } from '@nestjs/swagger';

/** A code written `PREFIX_*` stands for every dynamic code built on that prefix. */
export function codeSchema(codes: readonly string[]): SchemaObject {
  const exact = [...new Set(codes.filter((c) => !c.endsWith('_*')))].sort();
  const prefixes = [...new Set(codes.filter((c) => c.endsWith('_*')).map((c) => c.slice(0, -1)))].sort();
  const alternatives: SchemaObject[] = [];
  if (exact.length > 0) alternatives.push({ type: 'string', enum: exact });
  for (const prefix of prefixes) alternatives.push({ type: 'string', pattern: `^${prefix}[A-Z0-9_]+$` });
  return alternatives.length === 1 ? alternatives[0] : { oneOf: alternatives };
}

export function errorResponseSchema(codes: readonly string[]): SchemaObject {
  return {
    type: 'object',
    required: ['error', 'requestId', 'timestamp'],
    additionalProperties: false,
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        additionalProperties: false,
        properties: {
          code: codeSchema(codes),
          message: {
            type: 'string',
            description: 'Client-safe text; generic for server and upstream failures.',
          },
          details: {
            type: 'object',
            nullable: true,
            additionalProperties: true,
            description: 'Client-safe context; never raw upstream exception text.',
          },
        },
      },
      requestId: { type: 'string', description: 'Correlation id (ULID unless the client supplied one).' },
      timestamp: { type: 'string', format: 'date-time', description: 'Time of the error.' },
    },
  };
}

/** The codes listed in an error response schema built by `errorResponseSchema` (for merging). */
export function codesOf(schema: SchemaObject | undefined): string[] | undefined {
  const code = (schema?.properties?.error as SchemaObject | undefined)?.properties?.code as
    SchemaObject | undefined;
  if (!code) return undefined;
  const parts = code.oneOf ? (code.oneOf as SchemaObject[]) : [code];
  const codes: string[] = [];
  for (const part of parts) {
    if (part.enum) codes.push(...(part.enum as string[]));
    if (part.pattern) codes.push(`${part.pattern.slice(1, -'[A-Z0-9_]+$'.length)}*`);
  }
  // An error whose code names no catalogue code (a JSON-RPC error's integer) is no ErrorResponse.
  return codes.length > 0 ? codes : undefined;
}
