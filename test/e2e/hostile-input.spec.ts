/**
 * Bad input never gets a 500: deterministic samples of hostile JSON (arbitrary values, and objects
 * carrying each endpoint's own field names with values of every wrong type) sent over real HTTP to
 * every endpoint that takes a body, and hostile path and query values to the parameterised GETs.
 * Every answer must be below 500, and every 4xx must be the ErrorResponse envelope with a catalogue code.
 */
import fc from 'fast-check';
import { describeError } from '@passport/core';
import { bearer, mintAndLogin } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const SAMPLES = 40;
const ADMIN_ROUTES = JSON.stringify({ entities: { methods: { '/api/sessions': '60', '/api/sessions/revoke': '60' } } });

const hostileValue = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.string({ unit: 'binary', maxLength: 50 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  fc.constant('HOLA/MUNDO/'),
  fc.constant('a'.repeat(5000)),
);

function bodiesFor(fields: readonly string[], seed: number): unknown[] {
  const shaped = fc.record(Object.fromEntries(fields.map((f) => [f, hostileValue])), { requiredKeys: [] });
  return [
    ...fc.sample(fc.jsonValue({ maxDepth: 3 }), { numRuns: SAMPLES / 2, seed }),
    ...fc.sample(shaped, { numRuns: SAMPLES, seed: seed + 1 }),
  ];
}

const pathValues = (seed: number): string[] =>
  fc.sample(fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }), fc.constant('%00'), fc.constant('..%2F..%2Fetc')), {
    numRuns: SAMPLES,
    seed,
  });

describe('hostile input never gets a 500', () => {
  let app: TestApp;
  let user: string;
  let admin: string;

  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
    user = (await mintAndLogin(app)).jwt;
    admin = (await mintAndLogin(app, { metadata: { permissioned_routes: ADMIN_ROUTES } })).jwt;
  });
  afterAll(() => app.close());

  async function expectClientSafe(res: Response, what: string): Promise<void> {
    const text = await res.text();
    expect([what, res.status < 500]).toEqual([what, true]);
    if (res.status >= 400) {
      const body = JSON.parse(text) as { error?: { code?: string }; requestId?: string };
      expect([what, typeof body.error?.code, describeError(body.error?.code ?? '') !== undefined]).toEqual([what, 'string', true]);
      expect(text).not.toMatch(/\bat [\w.<>]+ \(|node_modules|\/work\//);
    }
  }

  const endpoints: [string, readonly string[], () => Record<string, string>][] = [
    ['/api/login', ['accountid', 'passportid', 'timestamp', 'timestamp_iso', 'base64url_signature', 'passportid_base64url_signature', 'signature'], () => ({})],
    ['/api/identity/verify', ['hola', 'expectedRecipient', 'constraints', 'includeProfile'], () => ({})],
    ['/api/testhola', ['hola', 'expectedRecipient'], () => bearer(user)],
    ['/api/isauthorizedsigner', ['tokenId', 'base64HashOrDelegateSignerId', 'unixTimestamp', 'publicKey', 'signature'], () => bearer(user)],
    ['/api/signclient', ['tobesignedValues', 'mintingfee', 'token_id', 'tier'], () => ({})],
    ['/api/sessions/revoke', ['sessionId', 'reason'], () => bearer(admin)],
  ];

  it.each(endpoints.map(([path, fields, headers], i) => [path, fields, headers, i] as const))(
    'POST %s',
    async (path, fields, headers, i) => {
      for (const body of bodiesFor(fields, 1000 + i * 10)) {
        const res = await fetch(`${app.baseUrl}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers() },
          body: JSON.stringify(body),
        });
        await expectClientSafe(res, `${path} ${JSON.stringify(body).slice(0, 120)}`);
      }
    },
  );

  it('parameterised GETs with hostile path and query values', async () => {
    for (const value of pathValues(2000)) {
      const v = encodeURIComponent(value);
      for (const [url, headers] of [
        [`/api/identity/token/${v}/public`, {}],
        [`/api/identity/token/${v}/full`, bearer(user)],
        [`/.well-known/did/resolve?did=${v}`, {}],
        [`/.well-known/did/passport/${v}`, {}],
        [`/api/agents?limit=${v}&cursor=${v}`, {}],
        [`/api/mcp/resource/${v}`, {}],
        [`/api/mcp/resources?limit=${v}`, {}],
        [`/api/sessions?limit=${v}&cursor=${v}`, bearer(admin)],
      ] as const) {
        await expectClientSafe(await fetch(`${app.baseUrl}${url}`, { headers }), `GET ${url}`);
      }
    }
  });
});
