/**
 * @module paging/offset-page
 * Offset paging shared by every listing (`/api/agents`, `/api/mcp/resources` and its MCP tool,
 * `/api/sessions`), docs/protocol.md §4: `cursor` is the previous page's `nextCursor`, a decimal offset
 * (absent or empty = the first page); `limit` is an integer 1..100, default 20. Query strings give
 * decimal strings, MCP tool arguments give numbers; both are accepted. Anything else, a repeated
 * parameter included, is 400 `INVALID_QUERY_PARAMETER` naming the parameter.
 */
import { PassportError } from '../errors/passport.error.js';

export const PAGE_DEFAULT_LIMIT = 20;
export const PAGE_MAX_LIMIT = 100;

export interface OffsetPageQuery {
  readonly offset: number;
  readonly limit: number;
}

export function parseOffsetPageQuery(query: { limit?: unknown; cursor?: unknown }): OffsetPageQuery {
  return { offset: parseCursor(query.cursor), limit: parseLimit(query.limit) };
}

/** The cursor of the page after `offset + count` items of `total`, or null at the end. */
export function nextCursorAfter(offset: number, count: number, total: number): string | null {
  return offset + count < total ? String(offset + count) : null;
}

function parseLimit(raw: unknown): number {
  if (raw === undefined) return PAGE_DEFAULT_LIMIT;
  const n = integerOf(raw);
  if (n === null || n < 1 || n > PAGE_MAX_LIMIT) {
    throw new PassportError('INVALID_QUERY_PARAMETER', {
      parameter: 'limit',
      reason: 'must be an integer from 1 to 100',
    });
  }
  return n;
}

function parseCursor(raw: unknown): number {
  if (raw === undefined || raw === '') return 0;
  const n = integerOf(raw);
  if (n === null || n < 0) {
    throw new PassportError('INVALID_QUERY_PARAMETER', {
      parameter: 'cursor',
      reason: 'must be a nextCursor from a previous page',
    });
  }
  return n;
}

/** A non-negative safe integer from a decimal string (no sign, no exponent, no spaces) or a number. */
function integerOf(raw: unknown): number | null {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) && raw >= 0 ? raw : null;
  if (typeof raw !== 'string' || !/^\d{1,16}$/.test(raw)) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : null;
}
