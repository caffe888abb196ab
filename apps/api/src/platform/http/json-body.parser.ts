/**
 * The only request body parser: JSON (`application/json` and `application/*+json`). Every other
 * content type has no parser, so Fastify rejects such a body with 415 before any handler, guard or
 * authentication runs (docs/protocol.md §5). Parsing keeps Fastify's prototype-poisoning protection;
 * malformed JSON becomes 400 `INVALID_JSON`; an empty body counts as no body.
 */
import { type FastifyBodyParser, type FastifyInstance } from 'fastify';
import { AppError } from './app.error.js';

export const JSON_CONTENT_TYPES: readonly (string | RegExp)[] = [
  'application/json',
  /^application\/[a-z0-9.+-]+\+json$/i,
];

export function registerJsonBodyParser(fastify: FastifyInstance, bodyLimit: number): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  const parser: FastifyBodyParser<string> = (request, text, done) => {
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    parseJson(request, text, (err, value) => {
      if (err) done(new AppError('INVALID_JSON'), undefined);
      else done(null, value);
    });
  };
  fastify.removeAllContentTypeParsers();
  for (const type of JSON_CONTENT_TYPES)
    fastify.addContentTypeParser(type, { parseAs: 'string', bodyLimit }, parser);
}
