/**
 * The only request body parser: JSON (`application/json` and `application/*+json`). Every other
 * content type has no parser, so Fastify rejects such a body with 415 before any handler, guard or
 * authentication runs (docs/protocol.md §5). Parsing keeps Fastify's prototype-poisoning protection;
 * malformed JSON becomes 400 `INVALID_JSON`; an empty body counts as no body. JSON is UTF-8 (RFC 8259
 * §8.1): a body declared in another charset is 415, not read as UTF-8 regardless. No content coding is
 * decoded: a body with a `Content-Encoding` other than `identity` is 415 (RFC 9110 §8.4.1), not a
 * gzip-labelled body parsed as plain JSON; so is one whose `Transfer-Encoding` names a coding besides
 * `chunked` (Node undoes the chunking only: `gzip, chunked` would be read as plain JSON, where a proxy
 * that decodes it reads another body).
 */
import { isUtf8 } from 'node:buffer';
import { type FastifyBodyParser, type FastifyInstance } from 'fastify';
import { printableText } from '@passport/core/codecs';
import { AppError } from './app.error.js';

export const JSON_CONTENT_TYPES: readonly (string | RegExp)[] = [
  'application/json',
  // Fastify tests a RegExp against the whole header, parameters included: `; charset=utf-8` and any
  // other parameter must match too (a probe: they were 415 while the bare type was read). The charset
  // itself is checked in the parser. Linear: no part can match the same text two ways.
  /^application\/[a-z0-9.+-]+\+json(?:[ \t]*;.*)?$/i,
];

export function registerJsonBodyParser(fastify: FastifyInstance, bodyLimit: number): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  const parser: FastifyBodyParser<Buffer> = (request, body, done) => {
    if (!declaresUtf8OrNoCharset(request.headers['content-type'])) {
      done(new AppError('UNSUPPORTED_MEDIA_TYPE'), undefined);
      return;
    }
    const coding = request.headers['content-encoding'];
    if (!isIdentityCoding(coding)) {
      // The body may well be JSON: say that the coding is what is refused.
      done(
        new AppError(
          'UNSUPPORTED_MEDIA_TYPE',
          { contentEncoding: printableText(String(coding), 64), supported: ['identity'] },
          'Request bodies must be sent without a content coding (Content-Encoding: identity or none).',
        ),
        undefined,
      );
      return;
    }
    const transfer = request.headers['transfer-encoding'];
    if (transfer !== undefined && !/^\s*chunked\s*$/i.test(transfer)) {
      done(
        new AppError(
          'UNSUPPORTED_MEDIA_TYPE',
          { transferEncoding: printableText(transfer, 64), supported: ['chunked'] },
          'Request bodies may use no transfer coding but chunked.',
        ),
        undefined,
      );
      return;
    }
    // Bytes that are not UTF-8 are refused, not read as U+FFFD (\xff\xfe would pass silently): a
    // client must not learn that its text arrived otherwise than it sent it.
    if (!isUtf8(body)) {
      done(
        new AppError(
          'INVALID_JSON',
          { reason: 'invalid_utf8' },
          'The request body is not valid UTF-8 (RFC 8259 §8.1).',
        ),
        undefined,
      );
      return;
    }
    const text = body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    parseJson(request, text, (err, value) => {
      if (!err) done(null, value);
      // Valid JSON that Fastify's prototype-poisoning protection refuses (its error does not say why; a
      // plain parse on this failure path tells): say so rather than "not valid JSON".
      else if (isValidJson(text))
        done(
          new AppError(
            'INVALID_JSON',
            { reason: 'forbidden_key', forbiddenKeys: ['__proto__', 'constructor.prototype'] },
            'The request body may not contain the keys "__proto__" or "constructor.prototype".',
          ),
          undefined,
        );
      else done(new AppError('INVALID_JSON'), undefined);
    });
  };
  fastify.removeAllContentTypeParsers();
  for (const type of JSON_CONTENT_TYPES)
    fastify.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit }, parser);
}

function isValidJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** No `Content-Encoding`, or only `identity` (any case, any spacing). */
export function isIdentityCoding(contentEncoding: string | undefined): boolean {
  return contentEncoding === undefined || /^\s*(?:identity\s*(?:,\s*identity\s*)*)?$/i.test(contentEncoding);
}

/** One `; name=value` media-type parameter (RFC 9110 §5.6.6): a token, or a quoted string with its escapes. */
const PARAMETER =
  /[ \t]*;[ \t]*([!#$%&'*+.^_`|~0-9A-Za-z-]+)=(?:([!#$%&'*+.^_`|~0-9A-Za-z-]+)|"((?:[^"\\]|\\.)*)")/y;

/**
 * A `charset` parameter, when present, must name UTF-8 (`utf-8`, `utf8`, any case, quoted or not). The
 * parameters are read one by one, so a `charset=` inside another parameter's quoted value is none (a
 * probe: `foo="x;charset=utf-8"; charset=latin1` was read as UTF-8). Past a parameter that cannot be
 * read, any `charset=` in the rest counts (fail closed).
 */
export function declaresUtf8OrNoCharset(contentType: string | undefined): boolean {
  // The usual header needs no scan (this runs for every JSON body, verify's included).
  if (contentType === undefined || contentType === 'application/json') return true;
  const isUtf8 = (charset: string) => ['utf-8', 'utf8'].includes(charset.toLowerCase());
  let at = contentType.indexOf(';');
  if (at === -1) return true;
  for (;;) {
    PARAMETER.lastIndex = at;
    const parameter = PARAMETER.exec(contentType);
    if (!parameter) break;
    if (parameter[1].toLowerCase() === 'charset')
      return isUtf8(parameter[2] ?? parameter[3].replace(/\\(.)/g, '$1'));
    at = PARAMETER.lastIndex;
  }
  // Every charset= in what could not be read must name UTF-8 (a review: only the first was judged).
  return [...contentType.slice(at).matchAll(/;\s*charset\s*=\s*("?)([^";\s]*)\1/gi)].every((m) =>
    isUtf8(m[2]),
  );
}
