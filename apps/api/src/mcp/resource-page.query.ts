/**
 * Paging of `GET /api/mcp/resources`, the same rules as `/api/agents` (resolutions §4): `cursor` is the
 * previous `nextCursor`, a decimal offset; `limit` is an integer 1..100, default 20. Anything else is
 * 400 `INVALID_QUERY_PARAMETER` naming the parameter.
 */
import { PassportError } from '@passport/core';

export interface PageQuery {
  readonly offset: number;
  readonly limit: number;
}

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

const DECIMAL = /^\d{1,9}$/;

const single = (value: unknown): unknown => (Array.isArray(value) ? value[value.length - 1] : value);

export function parsePageQuery(query: { limit?: unknown; cursor?: unknown }): PageQuery {
  const limitRaw = single(query.limit);
  const cursorRaw = single(query.cursor);
  let limit = DEFAULT_PAGE_LIMIT;
  if (limitRaw !== undefined) {
    if (
      typeof limitRaw !== 'string' ||
      !DECIMAL.test(limitRaw) ||
      Number(limitRaw) < 1 ||
      Number(limitRaw) > MAX_PAGE_LIMIT
    ) {
      throw new PassportError('INVALID_QUERY_PARAMETER', {
        parameter: 'limit',
        expected: 'integer from 1 to 100',
      });
    }
    limit = Number(limitRaw);
  }
  let offset = 0;
  if (cursorRaw !== undefined) {
    if (typeof cursorRaw !== 'string' || !DECIMAL.test(cursorRaw)) {
      throw new PassportError('INVALID_QUERY_PARAMETER', {
        parameter: 'cursor',
        expected: 'the nextCursor of a previous page',
      });
    }
    offset = Number(cursorRaw);
  }
  return { offset, limit };
}
