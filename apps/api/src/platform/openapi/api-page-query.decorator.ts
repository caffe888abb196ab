/**
 * `@ApiPageQuery()`: documents the offset paging parameters every listing shares
 * (`@passport/core` paging/offset-page.ts): `limit` 1..100 (default 20) and `cursor`, the previous
 * page's `nextCursor`.
 */
import { applyDecorators } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import { PAGE_DEFAULT_LIMIT, PAGE_MAX_LIMIT } from '@passport/core/profile';

export function ApiPageQuery(): MethodDecorator {
  return applyDecorators(
    ApiQuery({
      name: 'limit',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: PAGE_MAX_LIMIT, default: PAGE_DEFAULT_LIMIT },
      description: `Items per page, 1 to ${PAGE_MAX_LIMIT} (default ${PAGE_DEFAULT_LIMIT}).`,
    }),
    ApiQuery({
      name: 'cursor',
      required: false,
      schema: { type: 'string', pattern: '^[0-9]*$' },
      description: 'The nextCursor of the previous page (absent or empty: the first page).',
    }),
  );
}
