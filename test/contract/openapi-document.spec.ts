/**
 * Contract tests of the served OpenAPI document: the checker itself fails on drift (negative cases
 * first), the document carries the cross-cutting errors on every operation with catalogue codes, and
 * every parameter-free GET operation of every module answers what the document says (so routes
 * added later by any worker are swept automatically).
 */
import { readFileSync } from 'node:fs';
import { httpStatusOf } from '../../apps/api/src/platform/http/http-status.table.js';
import { codesOf } from '../../apps/api/src/platform/openapi/error-response.schema.js';
import { OpenApiContract } from '../support/openapi-contract.js';
import { rawRequest } from '../support/raw-http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

describe('the contract checker fails on drift', () => {
  const contract = new OpenApiContract({
    openapi: '3.0.3',
    info: { title: 't', version: '1' },
    paths: {
      '/thing/{id}': {
        get: {
          responses: {
            '200': {
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['a', 'nested'],
                    properties: {
                      a: { type: 'string' },
                      b: { type: 'integer', nullable: true },
                      nested: {
                        type: 'object',
                        required: ['x'],
                        properties: { x: { type: 'string', format: 'date-time' } },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  });
  const ok = { a: 'x', b: null, nested: { x: '2026-01-01T00:00:00.000Z' } };

  it('accepts a matching body', () => {
    expect(contract.problems('GET', '/thing/42', 200, ok)).toEqual([]);
  });
  it('rejects a field the document does not have', () => {
    expect(contract.problems('GET', '/thing/42', 200, { ...ok, extra: 1 }).join()).toMatch(/extra/);
  });
  it('rejects a nested field the document does not have', () => {
    expect(
      contract.problems('GET', '/thing/42', 200, { ...ok, nested: { x: ok.nested.x, y: 1 } }),
    ).not.toEqual([]);
  });
  it('rejects a missing required field', () => {
    expect(contract.problems('GET', '/thing/42', 200, { b: 1, nested: ok.nested }).join()).toMatch(/'a'/);
  });
  it('rejects a wrong format', () => {
    expect(contract.problems('GET', '/thing/42', 200, { ...ok, nested: { x: 'yesterday' } })).not.toEqual([]);
  });
  it('rejects an undocumented status, method, path or media type', () => {
    expect(contract.problems('GET', '/thing/42', 404, {})).not.toEqual([]);
    expect(contract.problems('POST', '/thing/42', 200, ok)).not.toEqual([]);
    expect(contract.problems('GET', '/other', 200, ok)).not.toEqual([]);
    expect(contract.problems('GET', '/thing/42', 200, 'x', 'text/html')).not.toEqual([]);
  });
  it('an answer without Content-Type matches only a response documented without content, and only empty', () => {
    expect(contract.problems('GET', '/thing/42', 200, '', '').join()).toMatch(/no Content-Type/);
    expect(contract.problems('GET', '/thing/42', 200, '{}', '').join()).toMatch(/without Content-Type/);
  });
});

describe('the served document', () => {
  let t: TestApp;
  let contract: OpenApiContract;
  beforeAll(async () => {
    t = await startTestApp({ STORE: 'memory' });
    contract = await OpenApiContract.load(t.baseUrl);
  });
  afterAll(async () => {
    await t?.close();
  });

  const operations = () =>
    Object.entries(contract.document.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => ['get', 'post', 'put', 'delete', 'patch'].includes(method))
        .map(([method, op]) => ({ path, method, op })),
    );

  it('is OpenAPI 3.0 with the package version and the bearer scheme', () => {
    expect(contract.document.openapi).toMatch(/^3\.0\./);
    expect(contract.document.info.version).toBe(VERSION);
    expect(contract.document.components.securitySchemes.bearer).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
  });

  // Not on a 401 or the passport quota's 429: a renewal is decided once the token is accepted and within
  // its quota (a probe: the document promised it where it can never come).
  it('declares New-Token on every response of every JWT-tier operation but 401 and 429, and only there; logout at both paths', () => {
    const bearerOps = operations().filter(({ op }) => (op.security ?? []).some((r: object) => 'bearer' in r));
    expect(bearerOps.length).toBeGreaterThan(5);
    for (const { path, method, op } of bearerOps) {
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        expect([path, method, status, response.headers?.['New-Token']?.schema]).toEqual([
          path,
          method,
          status,
          status === '401' || status === '429' ? undefined : { type: 'string' },
        ]);
      }
    }
    // GET /metrics takes the static METRICS_TOKEN, no passport JWT: its own scheme, and no New-Token; it
    // is served, and its scheme declared, only with METRICS_TOKEN set (openapi-integrator-headers.spec.ts).
    expect(contract.document.paths['/metrics']).toBeUndefined();
    expect(contract.document.components.securitySchemes.metricsToken).toBeUndefined();
    const login = contract.document.paths['/api/login'].post;
    expect(login.responses['200'].headers?.['New-Token']).toBeUndefined();
    for (const path of ['/api/logout', '/api/sessions/logout']) {
      const op = contract.document.paths[path].post;
      expect(op.responses['200'].headers['New-Token']).toBeDefined();
    }
  });

  // Found by a fuzz probe: any request may be refused by Node's parser (400 VALIDATION_FAILED,
  // malformed_request) or for its Expect header (417), and neither was documented everywhere.
  it('every operation documents the refusals any request may get: 400 VALIDATION_FAILED and 417 EXPECTATION_FAILED', async () => {
    for (const { path, method, op } of operations()) {
      expect([
        path,
        method,
        JSON.stringify(op.responses['400'] ?? null).includes('"VALIDATION_FAILED"'),
      ]).toEqual([path, method, true]);
      expect([
        path,
        method,
        JSON.stringify(op.responses['417'] ?? null).includes('"EXPECTATION_FAILED"'),
      ]).toEqual([path, method, true]);
    }
    // fetch will not send an Expect header.
    const host = new URL(t.baseUrl).host;
    const expectation = await rawRequest(
      t.baseUrl,
      `GET /health HTTP/1.1\r\nHost: ${host}\r\nExpect: something-else\r\n\r\n`,
    );
    expect(expectation.status).toBe(417);
    expect(contract.problems('GET', '/health', 417, expectation.body)).toEqual([]);
    const malformed = await rawRequest(
      t.baseUrl,
      `GET /health HTTP/1.1\r\nHost: ${host}\r\nContent-Length: x\r\n\r\n`,
    );
    expect([malformed.status, (malformed.body as { error: { code: string } }).error.code]).toEqual([
      400,
      'VALIDATION_FAILED',
    ]);
    expect(contract.problems('GET', '/health', 400, malformed.body)).toEqual([]);
  });

  it('documents the app routes', () => {
    for (const path of [
      '/',
      '/health',
      '/.well-known/enrollment',
      '/.well-known/mcp',
      '/openapi.json',
      '/swagger.json',
      '/api/v1/openapi.json',
      '/docs',
      '/docs/enrollment',
      '/api-docs',
      '/api/concierge/trust-anchor',
      '/api/login/timestamp',
      '/.well-known/terms-of-service',
      '/.well-known/privacy-policy',
      '/.well-known/data-retention',
      '/.well-known/why-identyclaw',
    ]) {
      expect(contract.document.paths[path]?.get).toBeDefined();
    }
  });

  it('every operation documents 400 REQUEST_HEADER_TOO_LARGE, 429 with Retry-After and 500 INTERNAL_ERROR', () => {
    for (const { path, method, op } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      const authored = (status: string) =>
        op.responses[status] && !codesOf(op.responses[status].content?.['application/json']?.schema);
      if (authored('400') || authored('429')) continue; // the operation documents its own (e.g. JSON-RPC) errors
      expect([where, codesOf(op.responses['400']?.content['application/json'].schema)]).toEqual([
        where,
        expect.arrayContaining(['REQUEST_HEADER_TOO_LARGE']),
      ]);
      expect([where, codesOf(op.responses['429']?.content['application/json'].schema)]).toEqual([
        where,
        expect.arrayContaining(['RATE_LIMIT_EXCEEDED']),
      ]);
      expect([where, op.responses['429'].headers?.['Retry-After']]).toEqual([where, expect.anything()]);
      if (op.responses['503'])
        expect([where, op.responses['503'].headers?.['Retry-After']?.schema]).toEqual([
          where,
          { type: 'integer', minimum: 1 },
        ]);
      expect([where, codesOf(op.responses['500']?.content['application/json'].schema)]).toEqual([
        where,
        expect.arrayContaining(['INTERNAL_ERROR']),
      ]);
      if (method === 'post') {
        expect([where, codesOf(op.responses['415']?.content['application/json'].schema)]).toEqual([
          where,
          ['UNSUPPORTED_MEDIA_TYPE'],
        ]);
        expect([where, codesOf(op.responses['400']?.content['application/json'].schema)]).toEqual([
          where,
          expect.arrayContaining(['INVALID_JSON']),
        ]);
      }
    }
  });

  it('every documented error code is a catalogue code listed under its status', () => {
    for (const { path, method, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        const codes = codesOf(response.content?.['application/json']?.schema);
        if (!codes) continue;
        for (const code of codes) {
          const tableStatus = httpStatusOf(code.endsWith('_*') ? code.slice(0, -2) : code);
          expect([`${method} ${path} ${code}`, tableStatus]).toEqual([
            `${method} ${path} ${code}`,
            Number(status),
          ]);
        }
      }
    }
  });

  it('every parameter-free GET answers what the document says', async () => {
    const checked: string[] = [];
    for (const { path, method, op } of operations()) {
      if (method !== 'get' || path.includes('{') || (op.parameters ?? []).some((p: any) => p.required))
        continue;
      // GET /mcp without a session is the documented 400 MCP_TRANSPORT_SESSION_REQUIRED envelope;
      // the transport itself (JSON-RPC and SSE) is covered by test/mcp.
      const res = await fetch(`${t.baseUrl}${path}`, { redirect: 'manual' });
      const type = res.headers.get('content-type') ?? undefined;
      const text = await res.text();
      const body = type?.startsWith('application/json') && text ? JSON.parse(text) : text;
      expect([path, contract.problems('GET', path, res.status, body, type)]).toEqual([path, []]);
      checked.push(path);
    }
    expect(checked.length).toBeGreaterThanOrEqual(16);
  });
});
