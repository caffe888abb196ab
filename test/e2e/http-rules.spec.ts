/**
 * End-to-end negative tests of the cross-cutting HTTP rules (docs/protocol.md §5) over real HTTP: unknown
 * paths, wrong methods, non-JSON bodies, malformed JSON, size limits, hostile request ids. Every
 * response is also checked against the served OpenAPI document where the path is documented.
 */
import { connect } from 'node:net';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import { rawRequest } from '../support/raw-http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ STORE: 'memory' });
});
afterAll(async () => {
  await t?.close();
});

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

async function call(path: string, init: RequestInit = {}) {
  const res = await fetch(`${t.baseUrl}${path}`, { redirect: 'manual', ...init });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, body };
}

/** Sends raw bytes and returns the raw HTTP response text (for requests fetch would refuse to send). */
function raw(payload: string): Promise<string> {
  const url = new URL(t.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.end(payload));
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (data += chunk));
    socket.on('end', () => resolve(data));
    socket.on('close', () => resolve(data));
    socket.on('error', reject);
  });
}

describe('unknown routes', () => {
  it.each([
    '/nope',
    '/api/nope',
    '/api/login/timestamp/extra',
    '/.well-known/nothing',
    '/docs/../../etc/passwd',
    '/API/LOGIN/TIMESTAMP',
    '/docs/swagger-ui.css.map',
  ])('404 ENDPOINT_NOT_FOUND with documentation links: %s', async (path) => {
    const res = await call(path);
    expect(res.status).toBe(404);
    const body = expectErrorEnvelope(res, 'ENDPOINT_NOT_FOUND');
    const docs = body.error.details?.documentation as Record<string, string>;
    expect(docs.openapi).toBe(`${t.baseUrl}/openapi.json`);
    expect(docs.docs).toBe(`${t.baseUrl}/docs`);
  });

  it('does not echo internal paths or stack traces', async () => {
    const res = await call('/this/does/not/exist');
    const text = JSON.stringify(res.body);
    expect(text).not.toMatch(/node_modules|\.ts:|\.js:|at Object|Cannot GET/);
  });
});

describe('wrong method on a known path', () => {
  it.each([
    ['POST', '/health'],
    ['DELETE', '/'],
    ['PUT', '/api/login/timestamp'],
    ['PATCH', '/openapi.json'],
  ])('%s %s → 405 METHOD_NOT_ALLOWED with Allow', async (method, path) => {
    const res = await call(path, { method });
    expect(res.status).toBe(405);
    expectErrorEnvelope(res, 'METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toContain('GET');
  });
});

describe('request bodies', () => {
  it.each([
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/xml',
  ])('POST with Content-Type %s → 415 UNSUPPORTED_MEDIA_TYPE', async (type) => {
    // (POST /mcp answers these as JSON-RPC errors: test/mcp/mcp-body-bounds.e2e.spec.ts.)
    const res = await call('/api/identity/verify', {
      method: 'POST',
      headers: { 'content-type': type },
      body: 'a=1',
    });
    expect(res.status).toBe(415);
    expectErrorEnvelope(res, 'UNSUPPORTED_MEDIA_TYPE');
  });

  // Found by a probe: a JSON body declared in another charset was read as UTF-8 all the same.
  it.each([
    ['application/json; charset=utf-16', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['application/json;charset=ISO-8859-1', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['application/vnd.api+json; charset="latin1"', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    // Read as JSON: the line inside is what is refused.
    ['application/json; charset=utf-8', 400, 'HOLA_VALIDATION_FAILED'],
    ['application/json; charset="UTF-8"', 400, 'HOLA_VALIDATION_FAILED'],
    ['application/json;charset=utf8', 400, 'HOLA_VALIDATION_FAILED'],
  ])('POST with Content-Type %s → %d %s (JSON is UTF-8)', async (type, status, code) => {
    const res = await call('/api/identity/verify', {
      method: 'POST',
      headers: { 'content-type': type },
      body: '{"hola":"x"}',
    });
    expect(res.status).toBe(status);
    expectErrorEnvelope(res, code);
  });

  // Found by a probe: a plain body labelled gzip was parsed as JSON (no coding is decoded here).
  it.each([
    ['gzip', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['br', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['identity, gzip', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['identity', 400, 'HOLA_VALIDATION_FAILED'],
    ['IDENTITY', 400, 'HOLA_VALIDATION_FAILED'],
  ])('POST with Content-Encoding %s → %d %s', async (coding, status, code) => {
    const res = await call('/api/identity/verify', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': coding },
      body: '{"hola":"x"}',
    });
    expect(res.status).toBe(status);
    const body = expectErrorEnvelope(res, code);
    if (status === 415)
      expect(body.error.details).toEqual({ contentEncoding: coding, supported: ['identity'] });
  });

  // Found by a probe: bytes that are not UTF-8 were read as U+FFFD and the body served.
  const bodyOf = (...parts: Array<string | number[]>) =>
    Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
  it.each([
    ['\\xff\\xfe inside a string', 400, 'INVALID_JSON', bodyOf('{"hola":"a', [0xff, 0xfe], '"}')],
    ['a lone continuation byte', 400, 'INVALID_JSON', bodyOf('{"hola":"', [0x80], '"}')],
    ['an overlong encoding of "/"', 400, 'INVALID_JSON', bodyOf('{"hola":"', [0xc0, 0xaf], '"}')],
    ['valid UTF-8 (é, 😀) and a BOM', 400, 'HOLA_VALIDATION_FAILED', bodyOf('\ufeff{"hola":"é😀"}')],
  ])('a body with %s → %d %s', async (_name, status, code, body) => {
    const res = await call('/api/identity/verify', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(status);
    const envelope = expectErrorEnvelope(res, code as string);
    if (code === 'INVALID_JSON') expect(envelope.error.details).toEqual({ reason: 'invalid_utf8' });
  });

  // Found by a probe: `Transfer-Encoding: gzip, chunked` with a plain body was parsed as JSON (Node undoes
  // the chunking only; a proxy that decodes the gzip reads another body).
  it.each([
    ['gzip, chunked', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['foo, chunked', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['chunked', 400, 'HOLA_VALIDATION_FAILED'],
    ['Chunked', 400, 'HOLA_VALIDATION_FAILED'],
  ])('POST with Transfer-Encoding %s → %d %s', async (coding, status, code) => {
    const body = '{"hola":"x"}';
    const res = await rawRequest(
      t.baseUrl,
      `POST /api/identity/verify HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
        `Transfer-Encoding: ${coding}\r\nConnection: close\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    expect(res.status).toBe(status);
    const envelope = expectErrorEnvelope(res, code);
    if (status === 415)
      expect(envelope.error.details).toEqual({ transferEncoding: coding, supported: ['chunked'] });
  });

  // Found by a probe: a header byte 0x9B (read as U+009B, the 8-bit CSI) came back raw in the details.
  it.each([
    'Content-Encoding: gz\u009b31mip\r\nTransfer-Encoding: chunked',
    'Transfer-Encoding: gz\u009b31mip, chunked',
  ])('an unsupported coding is quoted printable (%s)', async (header) => {
    const body = '{"hola":"x"}';
    const res = await rawRequest(
      t.baseUrl,
      `POST /api/identity/verify HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
        `${header}\r\nConnection: close\r\n\r\n` +
        `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    expect(res.status).toBe(415);
    const envelope = expectErrorEnvelope(res, 'UNSUPPORTED_MEDIA_TYPE');
    expect(JSON.stringify(envelope.error.details)).toMatch(/gz.?\?31mip/);
    expect(/[\p{Cc}\p{Cf}]/u.test(JSON.stringify(envelope.error.details))).toBe(false);
  });

  it('the method check comes first: a non-JSON POST to a GET-only path is 405', async () => {
    const res = await call('/health', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(res.status).toBe(405);
    expectErrorEnvelope(res, 'METHOD_NOT_ALLOWED');
  });

  it('a body without Content-Type → 415', async () => {
    const reply = await raw(
      'POST /api/identity/verify HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
    );
    expect(reply).toMatch(/^HTTP\/1.1 415/);
    expect(reply).toContain('"UNSUPPORTED_MEDIA_TYPE"');
  });

  it.each(['{', '{"a":1,}', 'not json', '{"a":"\\x"}', '[1,2', '{"__proto__":{"x":1}}'])(
    'malformed or poisoned JSON %s → 400 INVALID_JSON',
    async (body) => {
      const res = await call('/api/identity/verify', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(res.status).toBe(400);
      expectErrorEnvelope(res, 'INVALID_JSON');
    },
  );

  // Found by a probe: valid JSON refused by the prototype-poisoning guard was called "not valid JSON".
  it.each(['{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}'])(
    'valid JSON with a forbidden key %s → INVALID_JSON saying which keys are refused',
    async (body) => {
      const res = await call('/api/identity/verify', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expectErrorEnvelope(res, 'INVALID_JSON');
      const { error } = res.body as { error: { details: unknown; message: string } };
      expect(error.details).toEqual({
        reason: 'forbidden_key',
        forbiddenKeys: ['__proto__', 'constructor.prototype'],
      });
      expect(error.message).toContain('__proto__');
    },
  );

  // Found by a probe: a request Node's parser refused (an obs-fold header) got VALIDATION_FAILED with
  // details null; it now names the parser's refusal.
  it('a folded header line → 400 VALIDATION_FAILED naming the parser error', async () => {
    const reply = await raw(
      'GET /health HTTP/1.1\r\nHost: x\r\nX-A: a\r\n  folded\r\nConnection: close\r\n\r\n',
    );
    expect(reply).toMatch(/^HTTP\/1.1 400/);
    const body = JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4)) as {
      error: { code: string; details: { reason: string; parserError: string } };
    };
    expect(body.error.code).toBe('VALIDATION_FAILED');
    expect(body.error.details).toEqual({
      reason: 'malformed_request',
      parserError: expect.stringMatching(/^HPE_/),
    });
  });

  // From a mutation probe: no test sent a body of whitespace only, so reading it as malformed JSON passed
  // (the parser counts an empty body, blanks and all, as no body: the route then judges the missing field).
  it('a JSON body of whitespace only counts as no body, as an empty one does', async () => {
    const post = (body: string) =>
      call('/api/identity/verify', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const empty = await post('');
    const blank = await post(' \r\n\t ');
    expectErrorEnvelope(empty, 'HOLA_VALIDATION_FAILED');
    expectErrorEnvelope(blank, 'HOLA_VALIDATION_FAILED');
    expect((blank.body as { error: { details: unknown } }).error.details).toEqual(
      (empty.body as { error: { details: unknown } }).error.details,
    );
  });

  // From a mutation probe: no test sent a method that is no token, so mapping its parser error to
  // another answer than 400 passed.
  it('a method that is no token → 400 VALIDATION_FAILED naming HPE_INVALID_METHOD', async () => {
    const reply = await raw('G@T /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(reply).toMatch(/^HTTP\/1\.1 400 /);
    const body = JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4)) as {
      error: { code: string; details: unknown };
    };
    expect(body.error.code).toBe('VALIDATION_FAILED');
    expect(body.error.details).toEqual({ reason: 'malformed_request', parserError: 'HPE_INVALID_METHOD' });
  });

  it('a body over 64 KiB → 400 REQUEST_HEADER_TOO_LARGE', async () => {
    const body = JSON.stringify({ hola: 'x'.repeat(64 * 1024) });
    const res = await call('/api/identity/verify', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(400);
    expectErrorEnvelope(res, 'REQUEST_HEADER_TOO_LARGE');
  });

  // From a mutation probe: a limit one byte higher passed, the body above being far over it.
  it('a body of exactly 64 KiB is read; one byte more is REQUEST_HEADER_TOO_LARGE', async () => {
    const sized = (bytes: number) => {
      const text = JSON.stringify({ hola: '' });
      return JSON.stringify({ hola: 'x'.repeat(bytes - text.length) });
    };
    const post = (body: string) =>
      call('/api/identity/verify', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(sized(65_536)).toHaveLength(65_536);
    const read = await post(sized(65_536));
    // Read and judged: a line far over its own 512 characters.
    expectErrorEnvelope(read, 'HOLA_VALIDATION_FAILED');
    expectErrorEnvelope(await post(sized(65_537)), 'REQUEST_HEADER_TOO_LARGE');
  });

  it('headers over 16 KiB → 400 REQUEST_HEADER_TOO_LARGE as a JSON envelope, not a bare 431', async () => {
    const reply = await raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`);
    expect(reply).toMatch(/^HTTP\/1.1 400 /);
    expect(reply.toLowerCase()).toContain('content-type: application/json');
    const body = JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4));
    expect(body.error.code).toBe('REQUEST_HEADER_TOO_LARGE');
    expect(body.requestId).toMatch(ULID);
    expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
  });

  it('headers just under the limit are accepted', async () => {
    const res = await call('/health', { headers: { 'x-padding': 'a'.repeat(12 * 1024) } });
    expect(res.status).toBe(200);
  });
});

describe('request ids', () => {
  it('echoes a well-formed X-Request-Id in the header and the body', async () => {
    const res = await call('/api/login/timestamp', { headers: { 'x-request-id': 'abc.DEF_1:2-3' } });
    expect(res.headers.get('x-request-id')).toBe('abc.DEF_1:2-3');
    expect((res.body as { requestId: string }).requestId).toBe('abc.DEF_1:2-3');
  });

  it('falls back to X-Correlation-Id', async () => {
    const res = await call('/nope', { headers: { 'x-correlation-id': 'corr-42' } });
    expect(res.headers.get('x-request-id')).toBe('corr-42');
    expect((res.body as { requestId: string }).requestId).toBe('corr-42');
  });

  // From a mutation probe: no test sent both, so preferring X-Correlation-Id passed.
  it('takes X-Request-Id over X-Correlation-Id when both are sent', async () => {
    const res = await call('/nope', { headers: { 'x-request-id': 'req-1', 'x-correlation-id': 'corr-2' } });
    expect(res.headers.get('x-request-id')).toBe('req-1');
    expect((res.body as { requestId: string }).requestId).toBe('req-1');
  });

  // From a mutation probe: an empty X-Request-Id is no id (docs/protocol.md §5), so X-Correlation-Id is
  // taken; a version that stopped at the empty header and made a new ULID passed every test.
  it('an empty X-Request-Id is none: X-Correlation-Id is taken', async () => {
    const reply = await raw(
      'GET /nope HTTP/1.1\r\nHost: x\r\nX-Request-Id: \r\nX-Correlation-Id: corr-7\r\nConnection: close\r\n\r\n',
    );
    expect(reply).toMatch(/\r\nx-request-id: corr-7\r\n/i);
    expect(reply).toContain('"requestId":"corr-7"');
  });

  it('generates a ULID when none is sent', async () => {
    const res = await call('/health');
    expect(res.headers.get('x-request-id')).toMatch(ULID);
  });

  it.each([
    ['too long', 'a'.repeat(129)],
    ['space', 'abc def'],
    ['quote and angle brackets', '"><script>'],
    ['slash', 'a/b'],
    ['unicode', 'ñandú'],
    ['two headers joined', 'a, b'],
  ])('replaces a hostile X-Request-Id (%s) with a new ULID', async (_label, value) => {
    const res = await call('/nope', { headers: { 'x-request-id': value } });
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(ULID);
    expect((res.body as { requestId: string }).requestId).toBe(id);
  });

  it('accepts exactly 128 characters', async () => {
    const id = 'a'.repeat(128);
    const res = await call('/health', { headers: { 'x-request-id': id } });
    expect(res.headers.get('x-request-id')).toBe(id);
  });

  it('a CRLF in a request id cannot split the response (it never reaches a header)', async () => {
    const reply = await raw(
      'GET /health HTTP/1.1\r\nHost: x\r\nX-Request-Id: a%0d%0aSet-Cookie:x=1\r\nConnection: close\r\n\r\n',
    );
    expect(reply.toLowerCase()).not.toContain('set-cookie');
  });
});

describe('HEAD and query strings', () => {
  it('HEAD of a GET route answers 200 without a body', async () => {
    const res = await call('/health', { method: 'HEAD' });
    expect(res.status).toBe(200);
  });

  it('a query string does not change routing', async () => {
    const res = await call('/health?x=1');
    expect(res.status).toBe(200);
  });
});
