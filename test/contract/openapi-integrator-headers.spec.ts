/**
 * A probe (an integrator generating a TypeScript client with @hey-api/openapi-ts from the served
 * document): what the app answers but the document does not declare, so a generated client cannot type
 * or send it.
 * - Every 401 carries `WWW-Authenticate` (error-envelope.filter.ts; `error="invalid_token"` tells a client
 *   to drop its token), and it is exposed to browsers by CORS, but no 401 of the document declares it.
 * - The 301 of GET /api/v1/openapi.json carries `Location`, named only in its description.
 * - POST /mcp takes a JSON-RPC body, but the document has no requestBody: the generated
 *   `mcpTransportPost` types `body` as `never`, so a JSON-RPC message needs a cast. The MCP headers the
 *   transport reads (Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name) are not parameters,
 *   and the Mcp-Session-Id an initialize answers with is no declared response header.
 * - `X-Request-Id`, on every answer, was named only in `info.description`; the scrape token's security
 *   scheme was declared with no route using it (METRICS_TOKEN unset).
 * (Accept cannot be declared: OpenAPI 3.0 ignores a header parameter named Accept; the description says it.)
 */
import { startTestApp, type TestApp } from '../support/test-app.js';

type Json = Record<string, any>;

let app: TestApp;
let document: Json;

beforeAll(async () => {
  app = await startTestApp({ STORE: 'memory' });
  document = (await (await fetch(`${app.baseUrl}/openapi.json`)).json()) as Json;
});
afterAll(() => app.close());

const lower = (headers: Json | undefined): string[] => Object.keys(headers ?? {}).map((h) => h.toLowerCase());

it('every documented 401 declares the WWW-Authenticate header it is answered with', async () => {
  const res = await fetch(`${app.baseUrl}/api/me/identity`);
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe('Bearer realm="passport"');
  const undeclared: string[] = [];
  for (const [path, operations] of Object.entries<Json>(document.paths))
    for (const [method, operation] of Object.entries<Json>(operations)) {
      const unauthorized = operation.responses?.['401'];
      if (unauthorized && !lower(unauthorized.headers).includes('www-authenticate'))
        undeclared.push(`${method.toUpperCase()} ${path}`);
    }
  expect(undeclared).toEqual([]);
});

it('the 301 of GET /api/v1/openapi.json declares its Location header', async () => {
  const res = await fetch(`${app.baseUrl}/api/v1/openapi.json`, { redirect: 'manual' });
  expect(res.status).toBe(301);
  expect(res.headers.get('location')).toBe('/openapi.json');
  expect(lower(document.paths['/api/v1/openapi.json'].get.responses['301'].headers)).toContain('location');
});

it('POST /mcp documents its JSON-RPC request body and the MCP headers it reads and answers with', () => {
  const post = document.paths['/mcp'].post;
  expect(post.requestBody?.content?.['application/json']).toBeDefined();
  const headerParameters = (post.parameters ?? [])
    .filter((parameter: Json) => parameter.in === 'header')
    .map((parameter: Json) => parameter.name.toLowerCase());
  expect(headerParameters).toEqual(
    expect.arrayContaining(['mcp-session-id', 'mcp-protocol-version', 'mcp-method', 'mcp-name']),
  );
  expect(lower(post.responses['200'].headers)).toContain('mcp-session-id');
  const del = document.paths['/mcp'].delete;
  expect((del.parameters ?? []).map((parameter: Json) => parameter.name.toLowerCase())).toContain(
    'mcp-session-id',
  );
});

it('every response declares X-Request-Id, one header object by reference', async () => {
  const res = await fetch(`${app.baseUrl}/health`, { headers: { 'X-Request-Id': 'probe-42' } });
  expect(res.headers.get('x-request-id')).toBe('probe-42');
  expect(document.components.headers['X-Request-Id'].schema).toEqual({ type: 'string' });
  const undeclared: string[] = [];
  for (const [path, operations] of Object.entries<Json>(document.paths))
    for (const [method, operation] of Object.entries<Json>(operations))
      for (const [status, response] of Object.entries<Json>(operation.responses ?? {}))
        if (response.headers?.['X-Request-Id']?.$ref !== '#/components/headers/X-Request-Id')
          undeclared.push(`${method.toUpperCase()} ${path} ${status}`);
  expect(undeclared).toEqual([]);
});

it("a 503's Retry-After is described for the login refused at the session cap too", () => {
  const login = document.paths['/api/login'].post.responses['503'];
  expect(login.headers['Retry-After'].description).toContain('SESSION_CAPACITY_REACHED');
});

it('declares the scrape token scheme only when a route uses it (METRICS_TOKEN set)', async () => {
  expect(Object.keys(document.components.securitySchemes)).toEqual(['bearer']);
  const scraped = await startTestApp({ STORE: 'memory', METRICS_TOKEN: 'x'.repeat(32) });
  try {
    const withToken = (await (await fetch(`${scraped.baseUrl}/openapi.json`)).json()) as Json;
    expect(Object.keys(withToken.components.securitySchemes).sort()).toEqual(['bearer', 'metricsToken']);
    expect(withToken.paths['/metrics'].get.security).toEqual([{ metricsToken: [] }]);
  } finally {
    await scraped.close();
  }
});
