/**
 * Bad input never gets a 500: deterministic samples of hostile JSON (arbitrary values, and objects
 * carrying each endpoint's own field names with values of every wrong type) sent over real HTTP to
 * every endpoint that takes a body, and hostile path and query values to the parameterised GETs.
 * Every answer must be below 500, and every 4xx must be the ErrorResponse envelope with a catalogue code.
 */
import fc from 'fast-check';
import { describeAnyError } from '../../apps/api/src/platform/http/app.error.js';
import { WebhookDispatcher } from '../../apps/api/src/webhooks/webhook-dispatcher.js';
import { bearer, mintAndLogin } from '../support/passports.js';
import { openRaw, parseRawResponse, rawRequest } from '../support/raw-http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { holaLine, postJson } from '../verify/hola-lines.js';

const SAMPLES = 40;
const ADMIN_ROUTES = JSON.stringify({
  entities: { methods: { '/api/sessions': '60', '/api/sessions/revoke': '60' } },
});

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
  fc.sample(
    fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.constant('%00'),
      fc.constant('..%2F..%2Fetc'),
    ),
    {
      numRuns: SAMPLES,
      seed,
    },
  );

describe('hostile input never gets a 500', () => {
  let app: TestApp;
  let user: string;
  let admin: string;

  beforeAll(async () => {
    // A short request timeout keeps the slow-body case fast; webhooks on, to sweep their targets.
    app = await startTestApp({
      STORE: 'memory',
      HTTP_REQUEST_TIMEOUT_MS: '1500',
      HTTP_HEADERS_TIMEOUT_MS: '1500',
      WEBHOOK_TEST_ENABLED: 'true',
    });
    user = (await mintAndLogin(app)).jwt;
    admin = (await mintAndLogin(app, { metadata: { permissioned_routes: ADMIN_ROUTES } })).jwt;
  });
  afterAll(() => app.close());

  async function expectClientSafe(res: Response, what: string): Promise<void> {
    const text = await res.text();
    expect([what, res.status < 500]).toEqual([what, true]);
    if (res.status >= 400) {
      const body = JSON.parse(text) as { error?: { code?: string }; requestId?: string };
      expect([what, typeof body.error?.code, describeAnyError(body.error?.code ?? '') !== undefined]).toEqual(
        [what, 'string', true],
      );
      expect(text).not.toMatch(/\bat [\w.<>]+ \(|node_modules|\/work\//);
    }
  }

  const endpoints: [string, readonly string[], () => Record<string, string>][] = [
    [
      '/api/login',
      [
        'accountid',
        'passportid',
        'timestamp',
        'timestamp_iso',
        'base64url_signature',
        'passportid_base64url_signature',
        'signature',
      ],
      () => ({}),
    ],
    ['/api/identity/verify', ['hola', 'expectedRecipient', 'constraints', 'includeProfile'], () => ({})],
    ['/api/testhola', ['hola', 'expectedRecipient'], () => bearer(user)],
    [
      '/api/isauthorizedsigner',
      ['tokenId', 'base64HashOrDelegateSignerId', 'unixTimestamp', 'publicKey', 'signature'],
      () => bearer(user),
    ],
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

  // An audit: details.did, details.tokenId and details.uri echoed a bidi override and control characters as
  // sent, which restyle the text a client shows; HOLA's `received` was already printable.
  it('what an error echoes of a bad value is printable text', async () => {
    const bad = encodeURIComponent('ab\u202ecd\u0007e');
    const details = async (url: string, headers: Record<string, string> = {}) =>
      ((await (await fetch(`${app.baseUrl}${url}`, { headers })).json()) as { error: { details: unknown } })
        .error.details;
    expect(await details(`/.well-known/did/resolve?did=did:passport:${bad}`)).toMatchObject({
      did: 'did:passport:ab?cd?e',
    });
    expect(await details(`/api/identity/token/${bad}/public`)).toEqual({ tokenId: 'ab?cd?e' });
    expect(await details(`/api/mcp/resource/doc:${bad}`)).toEqual({ uri: 'doc:ab?cd?e' });
  });

  it('raw hostile paths: bad percent-encoding, over-long parameters, trailing slashes', async () => {
    const long = 'a'.repeat(300);
    for (const path of [
      '/api/identity/token/%ff/public',
      '/api/identity/token/%/public',
      '/api/identity/token/%c0%af/full',
      '/.well-known/did/passport/%E0%A4%A',
      '/api/mcp/resource/%ff%fe',
      '/%ff',
      `/api/identity/token/${long}/public`,
      `/.well-known/did/passport/${long}`,
      '/api/agents/',
      '/api/identity/verify/',
      '/health//',
    ]) {
      const res = await fetch(`${app.baseUrl}${path}`);
      expect([path, res.headers.get('x-request-id') !== null]).toEqual([path, true]);
      await expectClientSafe(res, `GET ${path}`);
      expect([path, res.status]).not.toEqual([path, 405]);
    }
  });

  it('requests Node would answer itself: no Host, odd Expect, malformed lines', async () => {
    for (const payload of [
      'GET /health HTTP/1.1\r\n\r\n',
      'POST /api/identity/verify HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
      'GET /health HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n',
      'GET /health HTTP/1.1 junk\r\nHost: x\r\n\r\n',
      'GET /health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
      'GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
    ]) {
      const res = await rawRequest(app.baseUrl, payload);
      const what = JSON.stringify(payload);
      expect([what, res.status >= 400 && res.status < 500]).toEqual([what, true]);
      const body = res.body as { error?: { code?: string }; requestId?: string };
      expect([what, describeAnyError(body.error?.code ?? '') !== undefined]).toEqual([what, true]);
      expect([what, body.requestId]).toEqual([what, res.headers.get('x-request-id')]);
    }
  });

  it('a slow body is answered 408 in the envelope and its socket closed', async () => {
    const connection = await openRaw(app.baseUrl);
    connection.socket.write(
      'POST /api/identity/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{',
    );
    const trickle = setInterval(() => {
      if (connection.socket.writable) connection.socket.write(' ');
    }, 200);
    try {
      const res = parseRawResponse((await connection.closed).text);
      expect(res.status).toBe(408);
      expect((res.body as { error: { code: string } }).error.code).toBe('REQUEST_TIMEOUT');
    } finally {
      clearInterval(trickle);
    }
  });

  it('webhook URLs with embedded-IPv4 forms of refused addresses are refused', async () => {
    const dispatcher = app.app.get(WebhookDispatcher);
    const urls = [
      'http://[::ffff:0:7f00:1]/',
      'http://[::ffff:0:a9fe:a9fe]/',
      'http://[64:ff9b:1::a9fe:a9fe]/',
      'http://[64:ff9b::a00:1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[2002:7f00:1::1]/',
      'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
      'http://[::7f00:1]/',
      'http://[fd00:ec2::254]/',
    ];
    for (const webhook_url of urls) {
      const caller = await mintAndLogin(app, { metadata: { webhook_url } });
      const res = await postJson(app)(
        '/api/testhola',
        { hola: holaLine(app, { sender: caller.tokenId, signer: caller.key.signer }) },
        bearer(caller.jwt),
      );
      expect(res.status).toBe(200);
    }
    await dispatcher.idle();
    const recent = dispatcher.recentOutcomes().slice(-urls.length);
    expect(recent.map((o) => o.outcome)).toEqual(urls.map(() => 'refused'));
    for (const outcome of recent) expect(outcome.reason).toMatch(/^address_not_allowed:(?!public)/);
  });
});
