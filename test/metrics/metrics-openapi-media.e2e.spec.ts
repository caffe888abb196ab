/**
 * A probe (admin side): the served OpenAPI document of GET /api/metrics describes its text form as the
 * JSON MetricsDto object (`200 text/plain: $ref MetricsDto`) and documents `text/plain` bodies for its
 * 401, 403 and 503, which the app answers in JSON whatever Accept says. A client generated from the
 * document would parse the Prometheus text as an object. GET /metrics documents it as it is: a string,
 * errors in JSON only.
 */
import { startTestApp, type TestApp } from '../support/test-app.js';

type Json = Record<string, any>;

describe('GET /api/metrics in the served OpenAPI document', () => {
  let app: TestApp;
  let operation: Json;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
    const document = (await (await fetch(`${app.baseUrl}/openapi.json`)).json()) as Json;
    operation = document.paths['/api/metrics'].get;
  });
  afterAll(() => app.close());

  it('documents the Prometheus text form (200 text/plain) as a string, not as the JSON object', () => {
    const text = operation.responses['200'].content['text/plain'];
    expect(text).toBeDefined();
    expect(text.schema.type).toBe('string');
    expect(text.schema.$ref).toBeUndefined();
    expect(operation.responses['200'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/MetricsDto',
    );
  });

  it('documents its errors in the media type they are answered in (JSON), as GET /metrics does', async () => {
    for (const [status, response] of Object.entries<Json>(operation.responses)) {
      if (status === '200') continue;
      expect([status, Object.keys(response.content ?? {})]).toEqual([status, ['application/json']]);
    }
    // What the app answers a client asking for the text form without a token: JSON.
    const res = await fetch(`${app.baseUrl}/api/metrics`, { headers: { accept: 'text/plain' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });
});
