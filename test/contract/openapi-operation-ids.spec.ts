/**
 * Every operationId of the served OpenAPI document is an identifier that code generators and agent
 * frameworks accept as a function or tool name (`^[A-Za-z0-9_-]{1,64}$`, the rule of LLM tool names)
 * and is unique. A probe as an AI agent that turns the document into tools: a route served at two
 * paths (`@Post(['logout', 'sessions/logout'])`) got Nest's alias ids `Login_logout[0]` and
 * `Login_logout[1]`, which such tool registries refuse.
 */
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp;
let paths: Record<string, Record<string, { operationId?: string }>>;

beforeAll(async () => {
  app = await startTestApp({ STORE: 'memory' });
  paths = ((await (await fetch(`${app.baseUrl}/openapi.json`)).json()) as { paths: typeof paths }).paths;
});
afterAll(() => app.close());

it('every operationId is a plain identifier, and unique', () => {
  const ids = Object.values(paths).flatMap((operations) =>
    Object.values(operations).map((operation) => operation.operationId),
  );
  expect(ids.filter((id) => typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(id))).toEqual([]);
  expect(new Set(ids).size).toBe(ids.length);
});
