/**
 * End-to-end tests of the HTTP app's own endpoints over real HTTP. Every response is checked against
 * the served OpenAPI document by `contractClient`.
 */
import { readFileSync } from 'node:fs';
import { contractClient } from '../support/contract-fetch.js';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const CONCIERGE = {
  CONCIERGE_SUPPORT_EMAIL: 'help@concierge.example.org',
  CONCIERGE_A2A_REGISTRY_ID: 'registry-42',
  CONCIERGE_A2A_REGISTRY_URL: 'https://registry.example.org/agents/42',
  CONCIERGE_AGENT_CARD_URL: 'https://concierge.example.org/.well-known/agent.json',
  CONCIERGE_A2A_ENDPOINT: 'https://concierge.example.org/a2a',
};

let t: TestApp;
let call: ReturnType<typeof contractClient>;
beforeAll(async () => {
  t = await startTestApp({ STORE: 'memory', ...CONCIERGE });
  call = contractClient(t.baseUrl);
});
afterAll(async () => {
  await t?.close();
});

describe('GET /health', () => {
  it('reports all six fields, the chain and store checks, and this instance', async () => {
    const res = await call('/health');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      'checks',
      'degraded',
      'instance',
      'service',
      'status',
      'timestamp',
    ]);
    expect(res.body.status).toBe(res.body.degraded ? 'degraded' : 'healthy');
    expect(Object.keys(res.body.checks).sort()).toEqual(['chain', 'store']);
    expect(res.body.instance.pid).toBe(process.pid);
    expect(typeof res.body.instance.hostname).toBe('string');
  });

  it('answers JSON in the member order of the Health body, each request with its own timestamp', async () => {
    const first = await fetch(`${t.baseUrl}/health`);
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const text = await first.text();
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['status', 'degraded', 'checks', 'service', 'timestamp', 'instance']);
    expect(text).toBe(JSON.stringify(body));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = (await (await fetch(`${t.baseUrl}/health`)).json()) as Record<string, unknown>;
    expect(second.timestamp).not.toBe(body.timestamp);
    expect(new Date(second.timestamp as string).toISOString()).toBe(second.timestamp);
  });
});

describe('GET /', () => {
  it('is the root discovery body with the spec endpoint groups and the package version', async () => {
    const res = await call('/', { headers: { 'x-request-id': 'root-1' } });
    expect(res.status).toBe(200);
    for (const field of [
      'name',
      'version',
      'description',
      'agentGuide',
      'enrollment',
      'documentation',
      'endpoints',
      'wellKnown',
      'mcp',
      'requestId',
      'timestamp',
    ]) {
      expect(res.body).toHaveProperty(field);
    }
    expect(res.body.version).toBe(VERSION);
    expect(res.body.requestId).toBe('root-1');
    expect(res.body.endpoints).toEqual({
      public: [
        '/.well-known/did/passport/{tokenId}',
        '/.well-known/did/resolve',
        '/.well-known/enrollment',
        '/api/agents',
        '/api/identity/verify',
        '/api/identity/token/{tokenId}/public',
        '/api/login/timestamp',
        '/api/signclient',
      ],
      authenticated: [
        '/api/me/identity',
        '/api/login',
        '/api/logout',
        '/api/isauthorizedsigner',
        '/api/holanonce16ts',
      ],
      privileged: ['/api/metrics', '/api/sessions'],
    });
    expect(res.body.documentation).toEqual({
      swagger: `${t.baseUrl}/swagger.json`,
      openapi: `${t.baseUrl}/openapi.json`,
      html: `${t.baseUrl}/docs`,
    });
    expect(res.body.mcp.endpoint).toBe('/mcp');
    expect(res.body.mcp.tools).toEqual(['list_resources', 'get_resource']);
    expect(res.body.mcp.doNotUseRawHttpGetOn).toBe('/mcp');
    expect(res.body.enrollment.guide).toBe('/.well-known/enrollment');
  });

  it('is sent as JSON whose bytes are those of the body serialised whole (requestId and timestamp last)', async () => {
    // The fixed part of the body is serialised once; a hostile-looking but safe id must still be quoted right.
    const res = await call('/', { headers: { 'x-request-id': 'a.b:c-d_e' } });
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.text).toBe(JSON.stringify(res.body));
    expect(Object.keys(res.body).slice(-3)).toEqual(['hola', 'requestId', 'timestamp']);
    expect(res.body.requestId).toBe('a.b:c-d_e');
    expect(Math.abs(Date.parse(res.body.timestamp) - Date.now())).toBeLessThan(60_000);
  });

  it('points only at documents that exist', async () => {
    const res = await call('/');
    const { wellKnown } = res.body;
    for (const path of [
      wellKnown.enrollment,
      wellKnown.termsOfService,
      wellKnown.privacyPolicy,
      wellKnown.dataRetention,
    ]) {
      expect((await call(path)).status).toBe(200);
    }
    for (const url of Object.values(res.body.documentation) as string[]) {
      expect((await call(new URL(url).pathname)).status).toBe(200);
    }
  });
});

describe('GET /.well-known/enrollment', () => {
  it('has title, enrollment, numbered steps, support, requestId and timestamp', async () => {
    const res = await call('/.well-known/enrollment');
    expect(res.status).toBe(200);
    expect(res.body.enrollmentSteps.map((s: { step: number }) => s.step)).toEqual([1, 2, 3, 4]);
    expect(Object.keys(res.body.support).sort()).toEqual(['contact', 'documentation', 'examples', 'faq']);
  });
});

describe('GET /.well-known/mcp', () => {
  it('describes the streamable HTTP transport at /mcp and the two tools', async () => {
    const res = await call('/.well-known/mcp');
    expect(res.status).toBe(200);
    expect(res.body.transport).toEqual({
      protocol: 'streamable-http',
      endpoint: '/mcp',
      absoluteEndpoint: `${t.baseUrl}/mcp`,
    });
    expect(res.body.tools.map((tool: { name: string }) => tool.name)).toEqual([
      'list_resources',
      'get_resource',
    ]);
    expect(res.body.doNotUseRawHttpGetOn).toBe('/mcp');
    expect(res.body.httpAccessForAgents.health).toBe('/health');
  });

  it('its plain-HTTP resource paths resolve', async () => {
    const res = await call('/.well-known/mcp');
    const list = await fetch(`${t.baseUrl}${res.body.resources.list}`);
    expect(list.status).toBe(200);
    const discovery = await fetch(`${t.baseUrl}${res.body.httpAccessForAgents.discovery}`);
    expect(discovery.status).toBe(200);
  });
});

describe('policy documents', () => {
  it.each(['terms-of-service', 'privacy-policy', 'data-retention', 'why-identyclaw'])(
    '/.well-known/%s',
    async (name) => {
      const res = await call(`/.well-known/${name}`);
      expect(res.status).toBe(200);
      expect(res.body.version).toBe(VERSION);
      expect(res.body.sections.length).toBeGreaterThan(0);
    },
  );
});

describe('OpenAPI documents', () => {
  it('/openapi.json and /swagger.json serve the same 3.0 document with the package version', async () => {
    const a = await call('/openapi.json');
    const b = await call('/swagger.json');
    expect(a.status).toBe(200);
    expect(a.body).toEqual(b.body);
    expect(a.body.openapi).toMatch(/^3\.0\./);
    expect(a.body.info.version).toBe(VERSION);
  });

  it('/api/v1/openapi.json answers 301 to /openapi.json', async () => {
    const res = await call('/api/v1/openapi.json');
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/openapi.json');
  });

  it.each(['/docs/enrollment', '/api-docs'])('%s is gone: 410 ENDPOINT_REMOVED', async (path) => {
    const res = await call(path);
    expect(res.status).toBe(410);
    expectErrorEnvelope(res, 'ENDPOINT_REMOVED');
  });

  it('/docs serves Swagger UI from the installed package (no CDN)', async () => {
    const res = await call('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
    for (const asset of [
      '/docs/swagger-ui.css',
      '/docs/swagger-ui-bundle.js',
      '/docs/swagger-ui-standalone-preset.js',
      '/docs/docs-init.js',
    ]) {
      const r = await fetch(`${t.baseUrl}${asset}`);
      expect(r.status).toBe(200);
      expect((await r.arrayBuffer()).byteLength).toBeGreaterThan(50);
    }
  });

  it('serves no other file under /docs', async () => {
    for (const path of [
      '/docs/package.json',
      '/docs/index.js',
      '/docs/..%2fpackage.json',
      '/docs/absolute-path.js',
    ]) {
      const res = await call(path, { contract: false });
      expect(res.status).toBe(404);
      expectErrorEnvelope(res, 'ENDPOINT_NOT_FOUND');
    }
  });
});

describe('GET /api/login/timestamp', () => {
  it('returns one instant as Unix seconds and its canonical ISO string', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await call('/api/login/timestamp');
    const after = Math.floor(Date.now() / 1000);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['requestId', 'timestamp', 'timestamp_iso']);
    expect(Number.isInteger(res.body.timestamp)).toBe(true);
    expect(res.body.timestamp).toBeGreaterThanOrEqual(before);
    expect(res.body.timestamp).toBeLessThanOrEqual(after);
    expect(res.body.timestamp_iso).toBe(new Date(res.body.timestamp * 1000).toISOString());
    expect(res.body.timestamp_iso).toMatch(/\.000Z$/);
    expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
  });
});

describe('GET /api/concierge/trust-anchor', () => {
  it('returns every required field from configuration, lobbyTokenId null until set', async () => {
    const res = await call('/api/concierge/trust-anchor');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      displayName: 'Passport Concierge',
      host: t.baseUrl,
      verifyHost: t.baseUrl,
      supportEmail: CONCIERGE.CONCIERGE_SUPPORT_EMAIL,
      a2aRegistryId: CONCIERGE.CONCIERGE_A2A_REGISTRY_ID,
      a2aRegistryUrl: CONCIERGE.CONCIERGE_A2A_REGISTRY_URL,
      agentCardUrl: CONCIERGE.CONCIERGE_AGENT_CARD_URL,
      a2aEndpoint: CONCIERGE.CONCIERGE_A2A_ENDPOINT,
      lobbyTokenId: null,
    });
    expect(res.body.contactUris.a2a).toBe(CONCIERGE.CONCIERGE_A2A_ENDPOINT);
  });
});

describe('GET /api/concierge/trust-anchor on a fresh start and when misconfigured', () => {
  // Found by a review: on localhost the default support@localhost failed the published format: email.
  it.each([
    ['http://localhost:3000', 'support@localhost.invalid'],
    ['http://127.0.0.1:3000', 'support@127.0.0.1'],
  ])('the default supportEmail of %s is %s, which matches the OpenAPI schema', async (base, email) => {
    const other = await startTestApp({ STORE: 'memory', PUBLIC_BASE_URL: base });
    try {
      const res = await contractClient(other.baseUrl)('/api/concierge/trust-anchor');
      expect([res.status, res.body.supportEmail, res.body.contactUris.email]).toEqual([
        200,
        email,
        `mailto:${email}`,
      ]);
    } finally {
      await other.close();
    }
  });

  it('nothing configured: 200 with every field derived from PUBLIC_BASE_URL', async () => {
    const other = await startTestApp({ STORE: 'memory', PUBLIC_BASE_URL: 'https://id.example.org' });
    try {
      const res = await contractClient(other.baseUrl)('/api/concierge/trust-anchor');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        displayName: 'Passport Concierge',
        host: 'https://id.example.org',
        verifyHost: 'https://id.example.org',
        supportEmail: 'support@id.example.org',
        a2aRegistryId: 'passport-concierge',
        a2aRegistryUrl: 'https://id.example.org/api/agents',
        agentCardUrl: 'https://id.example.org/.well-known/agent-card.json',
        a2aEndpoint: 'https://id.example.org/a2a',
        contactUris: { a2a: 'https://id.example.org/a2a', email: 'mailto:support@id.example.org' },
        verifyCli: `curl -s https://id.example.org/api/identity/verify -H 'Content-Type: application/json' -d '{"hola":"<HOLA line>"}'`,
        lobbyTokenId: null,
        requestId: res.headers.get('x-request-id'),
      });
    } finally {
      await other.close();
    }
  });

  it.each([
    ['CONCIERGE_SUPPORT_EMAIL', { CONCIERGE_SUPPORT_EMAIL: 'not-an-email' }],
    ['CONCIERGE_AGENT_CARD_URL', { CONCIERGE_AGENT_CARD_URL: 'javascript:alert(1)' }],
    ['CONCIERGE_CONTACT_URIS', { CONCIERGE_CONTACT_URIS: '{"a2a": 1' }],
    ['CONCIERGE_LOBBY_TOKEN_ID', { CONCIERGE_LOBBY_TOKEN_ID: 'short' }],
  ])('an invalid %s stops the start with one line naming it (never a 500 later)', async (name, env) => {
    await expect(startTestApp({ STORE: 'memory', ...CONCIERGE, ...env })).rejects.toThrow(
      new RegExp(`^Invalid configuration: ${name} `),
    );
  });

  it('a configured lobby token id is returned', async () => {
    const other = await startTestApp({
      STORE: 'memory',
      ...CONCIERGE,
      CONCIERGE_LOBBY_TOKEN_ID: 'bjbvcjzqbdsj',
      CONCIERGE_CONTACT_URIS: '{"discord":"discord:server:x","email":"mailto:a@b.example"}',
    });
    try {
      const res = await contractClient(other.baseUrl)('/api/concierge/trust-anchor');
      expect(res.body.lobbyTokenId).toBe('bjbvcjzqbdsj');
      expect(res.body.contactUris).toEqual({ discord: 'discord:server:x', email: 'mailto:a@b.example' });
    } finally {
      await other.close();
    }
  });
});
