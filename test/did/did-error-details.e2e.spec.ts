/**
 * What the DID routes' answers name. A passport nobody holds is 404 DID_NOT_FOUND naming the DID its
 * resolver asked for: `did:passport:<id>` on the did:passport paths, the did:web alias on
 * `/passport/{id}/did.json` (a did:web resolver never asked for a did:passport DID). And the did:web
 * path is read from the request as written even in the absolute form of the request line
 * (`GET http://host/passport/<id>/did.json`, as a proxy may send it): the document is served.
 * A did:web path spelled at length is named cut to 256 characters; a did parameter given twice is no
 * DID (not_a_string). Real app over HTTP (the absolute form
 * over a raw socket).
 */
import { randomFaceTokenId } from '@passport/core';
import { didWebAlias } from '@passport/core/did';
import { cryptoRandomInt } from '@passport/core/token-id';
import { contractClient } from '../support/contract-fetch.js';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import { mintPassport } from '../support/passports.js';
import { rawRequest } from '../support/raw-http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('the DID routes name what was asked', () => {
  let app: TestApp;
  let request: ReturnType<typeof contractClient>;

  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
    request = contractClient(app.baseUrl);
  });
  afterAll(() => app.close());

  it('an unknown passport: DID_NOT_FOUND names did:passport on those paths, the did:web alias on did.json', async () => {
    const ghost = randomFaceTokenId(cryptoRandomInt);
    for (const route of [
      `/.well-known/did/resolve?did=did:passport:${ghost}`,
      `/.well-known/did/passport/${ghost}`,
    ]) {
      const res = await request(route);
      expect(expectErrorEnvelope(res, 'DID_NOT_FOUND').error.details).toMatchObject({
        did: `did:passport:${ghost}`,
      });
    }
    const web = await request(`/passport/${ghost}/did.json`);
    expect(expectErrorEnvelope(web, 'DID_NOT_FOUND').error.details).toMatchObject({
      did: didWebAlias(ghost, app.baseUrl),
    });
  });

  it('GET in the absolute form of the request line: the did:web document is served', async () => {
    const { tokenId } = await mintPassport(app);
    const host = new URL(app.baseUrl).host;
    const res = await rawRequest(
      app.baseUrl,
      `GET ${app.baseUrl}/passport/${tokenId}/did.json HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: didWebAlias(tokenId, app.baseUrl) });
  });

  it('a did:web path spelled at length is named cut to 256 characters', async () => {
    // 90 letters, each percent-encoded: 270 characters as written, over 300 in the DID asked.
    const written = '%61'.repeat(90);
    const res = await request(`/passport/${written}/did.json`);
    const details = expectErrorEnvelope(res, 'INVALID_DID').error.details as { did: string };
    expect(details.did).toBe(didWebAlias(written, app.baseUrl).slice(0, 256));
    expect(details.did).toHaveLength(256);
  });

  it('a did parameter given twice is 400 INVALID_DID (not_a_string), naming no DID', async () => {
    const { tokenId } = await mintPassport(app);
    const did = `did:passport:${tokenId}`;
    const res = await request(`/.well-known/did/resolve?did=${did}&did=${did}`);
    expect(expectErrorEnvelope(res, 'INVALID_DID').error.details).toEqual({
      did: null,
      reason: 'not_a_string',
    });
  });
});
