/** `@RequestId()`: the request's correlation id (see request-id.ts), for the `requestId` of success bodies. */
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { type FastifyRequest } from 'fastify';

export const RequestId = createParamDecorator((_data: unknown, ctx: ExecutionContext): string => {
  // The request is the HTTP context's first argument (what switchToHttp().getRequest() returns), read
  // without switchToHttp, which adds three new closures to the context on every call.
  return ctx.getArgByIndex<FastifyRequest>(0).id;
});
