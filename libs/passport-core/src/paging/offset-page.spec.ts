/** Offset paging of every listing: limit 1..100 default 20, cursor = decimal offset. */
import fc from 'fast-check';
import { isPassportError } from '../errors/passport.error.js';
import { nextCursorAfter, parseOffsetPageQuery as parsePageQuery } from './offset-page.js';

const rejects = (query: Record<string, unknown>, parameter: string) => {
  try {
    parsePageQuery(query);
  } catch (error) {
    return (
      isPassportError(error) &&
      error.code === 'INVALID_QUERY_PARAMETER' &&
      error.details?.parameter === parameter
    );
  }
  return false;
};

describe('parseOffsetPageQuery', () => {
  it.each([
    [{ limit: '0' }, 'limit'],
    [{ limit: '101' }, 'limit'],
    [{ limit: '-1' }, 'limit'],
    [{ limit: '2.5' }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ limit: '' }, 'limit'],
    [{ limit: ' 5' }, 'limit'],
    [{ cursor: 'abc' }, 'cursor'],
    [{ cursor: '-3' }, 'cursor'],
    [{ cursor: '1e3' }, 'cursor'],
    [{ cursor: '1.5' }, 'cursor'],
    [{ limit: ['1', '2'] }, 'limit'],
  ])('rejects %p with INVALID_QUERY_PARAMETER naming %s', (query, parameter) => {
    expect(rejects(query, parameter)).toBe(true);
  });

  it('defaults to the first 20; an empty cursor is the first page; MCP tools pass numbers', () => {
    expect(parsePageQuery({})).toEqual({ offset: 0, limit: 20 });
    expect(parsePageQuery({ cursor: '' })).toEqual({ offset: 0, limit: 20 });
    expect(parsePageQuery({ limit: 5, cursor: 10 })).toEqual({ offset: 10, limit: 5 });
  });

  it('gives the next cursor until the end', () => {
    expect(nextCursorAfter(0, 20, 45)).toBe('20');
    expect(nextCursorAfter(40, 5, 45)).toBeNull();
  });

  it('accepts every limit 1..100 and every decimal cursor', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 0, max: 999_999_999 }),
        (limit, offset) => {
          expect(parsePageQuery({ limit: String(limit), cursor: String(offset) })).toEqual({ offset, limit });
        },
      ),
    );
  });

  it('rejects every integer limit outside 1..100', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 101 })), (limit) =>
        rejects({ limit: String(limit) }, 'limit'),
      ),
    );
  });
});
