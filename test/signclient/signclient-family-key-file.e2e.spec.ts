/**
 * The family key file of `/api/signclient` (FAMILY_CREDENTIALS_FILE; family-signer.source.ts): while it is
 * missing, or holds no valid key, every signing request is 500 SIGNCLIENT_FAILED with the reason
 * `family_key_not_configured` and nothing of the file in the answer; once a valid file is put in place
 * the next request signs (201), without a restart. Real app over HTTP, real key file in its DATA_DIR.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomFaceTokenId } from '@passport/core';
import { cryptoRandomInt } from '@passport/core/token-id';
import { contractClient } from '../support/contract-fetch.js';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('POST /api/signclient and its family key file', () => {
  let app: TestApp;
  let keyFile: string;
  let keyText: string;
  let request: ReturnType<typeof contractClient>;

  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
    request = contractClient(app.baseUrl);
    // The development family writes the key on first start.
    keyFile = path.join(app.dataDir, 'keys', 'family-root.json');
    keyText = await readFile(keyFile, 'utf8');
  });
  afterAll(() => app.close());

  const sign = () =>
    request('/api/signclient', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        tobesignedValues: { not_after: '0', max_requests: '1' },
        token_id: randomFaceTokenId(cryptoRandomInt),
        mintingfee: 496,
      }),
    });

  it('missing, then not a key file: 500 family_key_not_configured; put back: 201 on the next request', async () => {
    await rm(keyFile);
    const missing = await sign();
    expect(expectErrorEnvelope(missing, 'SIGNCLIENT_FAILED').error.details).toEqual({
      reason: 'family_key_not_configured',
    });

    await writeFile(keyFile, '{"account_id":"not-a-key","private_key":"ed25519:secret-garbage"}', {
      mode: 0o600,
    });
    const garbage = await sign();
    expect(expectErrorEnvelope(garbage, 'SIGNCLIENT_FAILED').error.details).toEqual({
      reason: 'family_key_not_configured',
    });
    expect(garbage.text).not.toContain('secret-garbage');

    await writeFile(keyFile, keyText, { mode: 0o600 });
    const signed = await sign();
    expect(signed.status).toBe(201);
    expect(signed.body.serviceprovider_signature).toMatch(/^[A-Za-z0-9_-]{86}$/);
  });
});
