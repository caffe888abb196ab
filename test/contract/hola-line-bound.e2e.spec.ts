/**
 * The HOLA line's length bound, as the served OpenAPI document states it and as the routes apply it:
 * `hola` in VerifyRequestDto and TestHolaRequestDto is `maxLength: 512` (the core's HOLA_MAX_LENGTH), and a
 * 513-character string is refused on both routes with 400 HOLA_VALIDATION_FAILED (invalid_format), so a
 * client generated from the document never sends a line the server would refuse for its length.
 */
import { HOLA_MAX_LENGTH } from '@passport/core/hola';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import { bearer, mintAndLogin } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { postJson } from '../verify/hola-lines.js';

describe('the HOLA line length bound, documented and applied', () => {
  let app: TestApp;
  let post: ReturnType<typeof postJson>;

  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
    post = postJson(app);
  });
  afterAll(() => app.close());

  it('the served document says maxLength 512 for hola on both request bodies', async () => {
    expect(HOLA_MAX_LENGTH).toBe(512);
    const document = (await (await fetch(`${app.baseUrl}/openapi.json`)).json()) as {
      components: { schemas: Record<string, { properties: Record<string, { maxLength?: number }> }> };
    };
    for (const name of ['VerifyRequestDto', 'TestHolaRequestDto'])
      expect(document.components.schemas[name]?.properties.hola).toMatchObject({
        maxLength: HOLA_MAX_LENGTH,
      });
  });

  it('a 513-character hola is 400 HOLA_VALIDATION_FAILED (invalid_format) on verify and testhola', async () => {
    const { jwt } = await mintAndLogin(app);
    const hola = `HOLA/${'A'.repeat(HOLA_MAX_LENGTH + 1 - 5)}`;
    expect(hola).toHaveLength(513);
    for (const res of [
      await post('/api/identity/verify', { hola }),
      await post('/api/testhola', { hola }, bearer(jwt)),
    ])
      expect(expectErrorEnvelope(res, 'HOLA_VALIDATION_FAILED').error.details).toMatchObject({
        reasonCode: 'invalid_format',
      });
  });
});
