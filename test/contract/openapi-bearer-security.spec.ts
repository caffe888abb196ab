/**
 * Every operation that refuses a request without a token (401 MISSING_TOKEN) declares the passport JWT
 * as required in the served OpenAPI document, and every one that declares it so refuses such a request. A probe of the
 * backend team's experience: a JWT route given only `@UseGuards(BearerAuthGuard)`, without
 * `@ApiBearerAuth()`, passed every static check and the document called it public.
 */
import { startTestApp, type TestApp } from '../support/test-app.js';

interface Operation {
  readonly security?: Array<Record<string, unknown>>;
}

/**
 * Whether the operation requires the passport JWT: `bearer` in every requirement (an optional bearer, as
 * on verify, is `[{}, {bearer: []}]`; `/metrics` takes its own static token, `metricsToken`).
 */
const requiresBearer = (operation: Operation): boolean =>
  (operation.security ?? []).length > 0 &&
  (operation.security ?? []).every((requirement) => 'bearer' in requirement);

let app: TestApp;
let paths: Record<string, Record<string, Operation>>;

beforeAll(async () => {
  app = await startTestApp({ STORE: 'memory', METRICS_TOKEN: 'm'.repeat(32) });
  paths = ((await (await fetch(`${app.baseUrl}/openapi.json`)).json()) as { paths: typeof paths }).paths;
});
afterAll(() => app.close());

/** A concrete URL for a path template: a well-formed value for each parameter. */
const concrete = (path: string): string =>
  path
    .replace('{tokenId}', 'bhahbkbramax')
    .replace('{uri}', 'doc:discovery')
    .replace(/\{[^}]+\}/g, 'x');

it('an operation refuses a request without a token exactly when the document declares bearer security', async () => {
  const mismatched: string[] = [];
  for (const [path, operations] of Object.entries(paths)) {
    if (path === '/mcp') continue; // the MCP transport answers in JSON-RPC and needs no token
    for (const [method, operation] of Object.entries(operations)) {
      const res = await fetch(`${app.baseUrl}${concrete(path)}`, {
        method: method.toUpperCase(),
        headers: method === 'get' || method === 'delete' ? {} : { 'content-type': 'application/json' },
        body: method === 'get' || method === 'delete' ? undefined : '{}',
      });
      const text = await res.text();
      const refused = res.status === 401 && text.includes('"MISSING_TOKEN"');
      const declared = requiresBearer(operation);
      if (refused !== declared)
        mismatched.push(
          `${method.toUpperCase()} ${path}: 401 MISSING_TOKEN ${refused}, security ${declared}`,
        );
    }
  }
  expect(mismatched).toEqual([]);
});
