/**
 * Found by a probe (algorithmic complexity, c1): `application/*+json` bodies are parsed as JSON, and a
 * JSON body declared in UTF-8 is read (docs/protocol.md §5: only another charset is 415). Fastify
 * matches a RegExp content-type parser against the whole header, parameters included, so
 * `application/vnd.api+json; charset=utf-8` (or any parameter) was 415 while the bare type was read.
 */
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ STORE: 'memory' });
});
afterAll(async () => {
  await t?.close();
});

describe('application/*+json with parameters', () => {
  it.each([
    'application/vnd.api+json',
    'application/vnd.api+json; charset=utf-8',
    'application/problem+json;charset="UTF-8"',
    'application/vnd.api+json; ext=x',
  ])('POST with Content-Type %s is read as JSON', async (type) => {
    const res = await fetch(`${t.baseUrl}/api/identity/verify`, {
      method: 'POST',
      headers: { 'content-type': type },
      body: '{"hola":"x"}',
    });
    expect(res.status).toBe(400);
    expectErrorEnvelope(
      { status: res.status, headers: res.headers, body: await res.json() },
      'HOLA_VALIDATION_FAILED',
    );
  });
});

// From a mutation probe: no test sent a type that only begins like a +json one, so a parser pattern
// open at its end (reading `+jsonx` or `+json5` bodies as JSON) passed.
describe('types that only begin like application/*+json', () => {
  it.each(['application/vnd.api+jsonx', 'application/vnd.api+json5', 'application/vnd.api+json-seq'])(
    'POST with Content-Type %s is 415 UNSUPPORTED_MEDIA_TYPE',
    async (type) => {
      const res = await fetch(`${t.baseUrl}/api/identity/verify`, {
        method: 'POST',
        headers: { 'content-type': type },
        body: '{"hola":"x"}',
      });
      expectErrorEnvelope(
        { status: res.status, headers: res.headers, body: await res.json() },
        'UNSUPPORTED_MEDIA_TYPE',
      );
    },
  );
});
