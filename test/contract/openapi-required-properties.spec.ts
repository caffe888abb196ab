/**
 * Regression: response components list as required the nested objects the server always sends. With
 * @ApiProperty, a property documented by a schema that carries its own `required` list (the face, the
 * fee data, the discovery sections) was taken as optional; the zod descriptions say required.
 */
import { startTestApp, type TestApp } from '../support/test-app.js';

const ALWAYS_SENT: Record<string, string[]> = {
  PublicProfileDto: ['face'],
  FullIdentityDto: ['face'],
  OwnIdentityDto: ['face'],
  SignClientResponseDto: ['fee_data'],
  MetricsDto: ['requests', 'sessions', 'chain', 'verify', 'routes'],
  DidMethodDto: ['operations', 'errors'],
  RootDiscoveryDto: ['agentGuide', 'enrollment', 'hola', 'documentation', 'endpoints', 'wellKnown', 'mcp'],
  EnrollmentDto: ['enrollment', 'support'],
  McpDiscoveryDto: [
    'transport',
    'resources',
    'registration',
    'hola',
    'docs',
    'agentGuide',
    'httpAccessForAgents',
    'protocols',
  ],
};

let t: TestApp;
let schemas: Record<string, { required?: string[]; properties?: Record<string, unknown> }>;

beforeAll(async () => {
  t = await startTestApp({ STORE: 'memory' });
  schemas = (await (await fetch(`${t.baseUrl}/openapi.json`)).json()).components.schemas;
});
afterAll(() => t.close());

it.each(Object.entries(ALWAYS_SENT))('%s lists %p as required', (name, properties) => {
  const schema = schemas[name];
  expect(Object.keys(schema.properties ?? {})).toEqual(expect.arrayContaining(properties));
  expect(schema.required).toEqual(expect.arrayContaining(properties));
});

it('the discovery documents as served carry every section the document requires', async () => {
  for (const [path, name] of [
    ['/', 'RootDiscoveryDto'],
    ['/.well-known/enrollment', 'EnrollmentDto'],
    ['/.well-known/mcp', 'McpDiscoveryDto'],
  ] as const) {
    const body = await (await fetch(`${t.baseUrl}${path}`)).json();
    expect([path, Object.keys(body)]).toEqual([path, expect.arrayContaining(schemas[name].required ?? [])]);
  }
});
