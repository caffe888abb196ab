/** Paging of /api/mcp/resources: the agents rules (limit 1..100 default 20, cursor = decimal offset). */
import fc from 'fast-check';
import { isPassportError } from '@passport/core';
import { parsePageQuery } from './resource-page.query.js';

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

describe('parsePageQuery', () => {
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
    [{ cursor: '' }, 'cursor'],
  ])('rejects %p with INVALID_QUERY_PARAMETER naming %s', (query, parameter) => {
    expect(rejects(query, parameter)).toBe(true);
  });

  it('defaults to the first 20', () => {
    expect(parsePageQuery({})).toEqual({ offset: 0, limit: 20 });
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
