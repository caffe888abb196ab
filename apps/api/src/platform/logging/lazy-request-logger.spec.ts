/**
 * The lazy per-request logger writes the same lines a pino child would (bindings included), only
 * builds the child when a line is actually written, and works as Fastify's request logger.
 */
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { pino, type Logger } from 'pino';
import { LazyRequestLogger, lazyChildLoggerFactory } from './lazy-request-logger.js';

function capture(level: string): { logger: Logger; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const logger = pino({ level, base: { service: 'test' } }, stream);
  return {
    logger,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('LazyRequestLogger', () => {
  it('writes the lines of a pino child, with its bindings', () => {
    const { logger, lines } = capture('info');
    const lazy = new LazyRequestLogger(logger, { requestId: 'r-1' }, {});
    lazy.info({ route: '/x' }, 'hello');
    lazy.error('boom');
    expect(lines()).toEqual([
      expect.objectContaining({ level: 30, service: 'test', requestId: 'r-1', route: '/x', msg: 'hello' }),
      expect.objectContaining({ level: 50, requestId: 'r-1', msg: 'boom' }),
    ]);
  });

  it('builds no child for levels that are off, and one child for all enabled lines', () => {
    const { logger, lines } = capture('warn');
    let children = 0;
    const child = logger.child.bind(logger);
    logger.child = ((...args: Parameters<Logger['child']>) => (
      children++,
      child(...args)
    )) as Logger['child'];
    const lazy = new LazyRequestLogger(logger, { requestId: 'r-2' }, {});
    lazy.debug('off');
    lazy.info('off');
    lazy.trace('off');
    expect(children).toBe(0);
    lazy.warn('on');
    lazy.error('on');
    expect(children).toBe(1);
    expect(lines().map((l) => l.level)).toEqual([40, 50]);
  });

  it('honours a per-route level given in the child options', () => {
    const { logger, lines } = capture('warn');
    const lazy = new LazyRequestLogger(logger, { requestId: 'r-3' }, { level: 'debug' });
    expect(lazy.level).toBe('debug');
    lazy.debug('shown');
    expect(lines()).toEqual([expect.objectContaining({ level: 20, requestId: 'r-3', msg: 'shown' })]);
  });

  it('serves as Fastify request.log: lines carry the request id label', async () => {
    const { logger, lines } = capture('info');
    const app = Fastify({
      loggerInstance: logger,
      childLoggerFactory: lazyChildLoggerFactory,
      genReqId: () => 'req-42',
      disableRequestLogging: true,
    });
    app.get('/', async (request) => {
      request.log.info('inside');
      request.log.debug('not shown');
      return { ok: true };
    });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const response = await fetch(url);
    await app.close();
    expect(response.status).toBe(200);
    expect(lines().filter((l) => l.reqId !== undefined)).toEqual([
      expect.objectContaining({ level: 30, reqId: 'req-42', msg: 'inside' }),
    ]);
  });
});
