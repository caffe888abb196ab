/**
 * Bounds the served OpenAPI document states for request fields the core validates itself, checked against
 * what the routes do at those bounds: `constraints.maxAgeMs` is an integer 1..86400000 (0 and 86400001
 * are 400 INVALID_CONSTRAINTS), and isauthorizedsigner's `unixTimestamp` is an integer ≥ 0 (-1 is 400
 * ISAUTHORIZEDSIGNER_UNIXTIMESTAMP_INVALID). A client generated from the document sends nothing the
 * server refuses for these bounds, and is not kept from sending what it takes.
 */
import { MAX_HOLA_MAX_AGE_MS } from '@passport/core/hola';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import { bearer, mintAndLogin } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { holaLine, postJson } from '../verify/hola-lines.js';

type Schema = { minimum?: number; maximum?: number; properties?: Record<string, Schema> };

describe('documented request bounds, as applied', () => {
  let app: TestApp;
  let post: ReturnType<typeof postJson>;
  let schemas: Record<string, Schema>;

  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
    post = postJson(app);
    const document = (await (await fetch(`${app.baseUrl}/openapi.json`)).json()) as {
      components: { schemas: Record<string, Schema> };
    };
    schemas = document.components.schemas;
  });
  afterAll(() => app.close());

  it('constraints.maxAgeMs: documented 1..86400000; 0 and 86400001 are 400 INVALID_CONSTRAINTS, 1 is taken', async () => {
    expect(MAX_HOLA_MAX_AGE_MS).toBe(86_400_000);
    expect(schemas.VerifyRequestDto?.properties?.constraints?.properties?.maxAgeMs).toMatchObject({
      minimum: 1,
      maximum: 86_400_000,
    });
    const { tokenId, key } = await mintAndLogin(app);
    const line = () => holaLine(app, { sender: tokenId, signer: key.signer });
    for (const maxAgeMs of [0, 86_400_001])
      expectErrorEnvelope(
        await post('/api/identity/verify', { hola: line(), constraints: { maxAgeMs } }),
        'INVALID_CONSTRAINTS',
      );
    const taken = await post('/api/identity/verify', {
      hola: holaLine(app, { sender: tokenId, signer: key.signer, shiftMs: -5_000 }),
      constraints: { maxAgeMs: 1 },
    });
    expect(taken.status).toBe(200);
    expect(taken.body.failureReasons).toContain('timestamp_stale_or_future');
  });

  it('isauthorizedsigner unixTimestamp: documented ≥ 0; -1 is 400 ISAUTHORIZEDSIGNER_UNIXTIMESTAMP_INVALID', async () => {
    expect(schemas.IsAuthorizedSignerRequestDto?.properties?.unixTimestamp).toMatchObject({ minimum: 0 });
    const { jwt, tokenId } = await mintAndLogin(app);
    const res = await post(
      '/api/isauthorizedsigner',
      {
        tokenId,
        base64HashOrDelegateSignerId: 'research-bot-1',
        unixTimestamp: -1,
        publicKey: 'A'.repeat(43),
        signature: 'A'.repeat(86),
      },
      bearer(jwt),
    );
    expectErrorEnvelope(res, 'ISAUTHORIZEDSIGNER_UNIXTIMESTAMP_INVALID');
  });
});
