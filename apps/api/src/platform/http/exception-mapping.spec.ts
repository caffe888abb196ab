/** Which errors the filter logs with their stack: not the 503s the app decides on (found by a probe). */
import { BadRequestException, InternalServerErrorException } from '@nestjs/common';
import { PassportError } from '@passport/core';
import { mapException } from './exception-mapping.js';

describe('mapException', () => {
  it.each([
    ['a catalogued 503 (draining)', new PassportError('SERVICE_UNAVAILABLE', { state: 'draining' }), false],
    ['a catalogued 503 (replay store unavailable)', new PassportError('REPLAY_STORE_UNAVAILABLE'), false],
    ['a catalogued 500', new PassportError('SESSION_TERMINATION_FAILED'), true],
    // Found by a probe: a logout refused by a full Redis was logged with a stack and without its cause.
    [
      'a catalogued 500 recording its cause',
      new PassportError('SESSION_TERMINATION_FAILED', null, undefined, {
        cause: new Error('OOM command not allowed'),
      }),
      false,
    ],
    ['a catalogued 4xx', new PassportError('MISSING_TOKEN'), false],
    ['a Nest 500', new InternalServerErrorException(), true],
    ['a Nest 400', new BadRequestException(), false],
    ['anything else', new Error('boom'), true],
  ])('%s → unexpected %s', (_label, exception, unexpected) => {
    expect(mapException(exception).unexpected).toBe(unexpected);
  });

  it('never lets an unknown error text through', () => {
    expect(mapException(new Error('secret path /etc/x')).error.code).toBe('INTERNAL_ERROR');
  });
});
