/**
 * POST /api/testhola over real HTTP: the JWT tier, each gate of docs/protocol.md §4 produced by a real line
 * (format, freshness with ageSeconds/maxAgeSeconds, the signature-stage reason codes), then the 200
 * body whose reply line is signed by the server passport, addressed to the caller, and verifies.
 */
import { parseHola, randomFaceTokenId } from '@passport/core';
import { cryptoRandomInt } from '@passport/core/token-id';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import {
  addNamedAccount,
  bearer,
  mintAndLogin,
  mintPassport,
  newKey,
  serverIdentityOf,
  type TestKey,
} from '../support/passports.js';
import { expectMatchesOpenApi } from '../support/openapi-contract.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { holaLine, postJson, serviceHostOf, withSlot } from './hola-lines.js';

describe('POST /api/testhola', () => {
  let app: TestApp;
  let post: ReturnType<typeof postJson>;
  let caller: { tokenId: string; jwt: string; key: TestKey };

  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
    post = postJson(app);
    caller = await mintAndLogin(app);
  });
  afterAll(() => app.close());

  const test = (body: unknown, jwt: string | null = caller.jwt) =>
    post('/api/testhola', body, jwt ? bearer(jwt) : {});
  const own = (overrides: Partial<Parameters<typeof holaLine>[1]> = {}) =>
    holaLine(app, { sender: caller.tokenId, signer: caller.key.signer, ...overrides });

  const withWrongChecksum = (line: string) => withSlot(line, -1, line.at(-1) === 'A' ? 'B' : 'A', true);

  describe('failures', () => {
    it('needs a valid bearer token', async () => {
      expectErrorEnvelope(await test({ hola: own() }, null), 'MISSING_TOKEN');
      expectErrorEnvelope(await test({ hola: own() }, 'garbage'), 'INVALIDATED_TOKEN');
    });

    it('format, lint and checksum → 400 HOLA_VALIDATION_FAILED (same parser as verify)', async () => {
      for (const [hola, reasonCode] of [
        [{ nested: true }, 'payload_is_json_object'],
        ['HOLA/short', 'invalid_format'],
        [withSlot(own(), -2, '<SIG>'), 'placeholder_signature'],
        [withWrongChecksum(own()), 'checksum_invalid'],
      ] as const) {
        const res = await test({ hola });
        expect(expectErrorEnvelope(res, 'HOLA_VALIDATION_FAILED').error.details).toMatchObject({
          reasonCode,
          stage: 'format_checksum_and_payload_validation',
        });
      }
    });

    it('stale or future → 400 HOLA_TIMESTAMP_INVALID with ageSeconds and maxAgeSeconds; constraints are not accepted', async () => {
      const stale = await test({ hola: own({ shiftMs: -310_000 }), constraints: { maxAgeMs: 600_000 } });
      const details = expectErrorEnvelope(stale, 'HOLA_TIMESTAMP_INVALID').error.details!;
      expect(details).toMatchObject({ stage: 'timestamp_freshness_validation', maxAgeSeconds: 300 });
      expect(details.ageSeconds).toBeGreaterThanOrEqual(310);
      expect(details.ageSeconds).toBeLessThanOrEqual(312);
      const future = await test({ hola: own({ shiftMs: 20_000 }) });
      expect(
        (expectErrorEnvelope(future, 'HOLA_TIMESTAMP_INVALID').error.details!.ageSeconds as number) < 0,
      ).toBe(true);
    });

    it('each signature-stage reason → 400 HOLA_SIGNATURE_INVALID (stage signature_verification)', async () => {
      const expired = newKey();
      const expiredPassport = await mintPassport(app, {
        owner: expired,
        metadata: { not_after: '2021-01-01T00:00:00Z' },
      });
      const keyless = await mintPassport(app, { owner: 'nokeys.test' });
      await addNamedAccount(app, 'nokeys.test', []);
      for (const [hola, reasonCode] of [
        [
          holaLine(app, { sender: randomFaceTokenId(cryptoRandomInt), signer: caller.key.signer }),
          'token_missing',
        ],
        [holaLine(app, { sender: expiredPassport.tokenId, signer: expired.signer }), 'token_expired'],
        [own({ signer: newKey().signer }), 'signature_invalid'],
        [holaLine(app, { sender: keyless.tokenId, signer: caller.key.signer }), 'public_key_unavailable'],
      ] as const) {
        const res = await test({ hola });
        expect([reasonCode, expectErrorEnvelope(res, 'HOLA_SIGNATURE_INVALID').error.details]).toEqual([
          reasonCode,
          expect.objectContaining({ reasonCode, stage: 'signature_verification', hint: expect.any(String) }),
        ]);
      }
    });
  });

  describe('success', () => {
    it("answers with the server's own signed line addressed to the caller, which verifies", async () => {
      const server = serverIdentityOf(app);
      const res = await test({ hola: own({ recipient: server.tokenId.toUpperCase() }) });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        valid: true,
        peerTokenId: caller.tokenId,
        destinatary: server.tokenId,
        peerVerified: true,
        hola: expect.any(String),
        serverTokenId: server.tokenId,
        serverDestinatary: caller.tokenId,
        serverTimestamp: expect.any(String),
        checks: {
          formatValid: true,
          checksumValid: true,
          timestampValid: true,
          timestampFresh: true,
          noncetsValid: true,
          nonceReplaySafe: true,
          tokenExists: true,
          tokenActive: true,
          signatureValid: true,
          publicKeyAvailable: true,
        },
        requestId: res.headers.get('x-request-id'),
      });
      const reply = parseHola(res.body.hola, { serviceHost: serviceHostOf(app) });
      expect(reply.ok && reply.line).toMatchObject({
        form: 'standard',
        recipient: caller.tokenId.toUpperCase(),
        senderTokenId: server.tokenId,
        timestamp: res.body.serverTimestamp,
      });
      const checked = await post('/api/identity/verify', { hola: res.body.hola }, bearer(caller.jwt));
      expect(checked.body).toMatchObject({
        verified: true,
        peerTokenId: server.tokenId,
        destinatary: caller.tokenId,
      });
      expect(checked.body.warnings).toBeUndefined();
      // Each reply carries a fresh nonce.
      const again = await test({ hola: own() });
      expect(again.body.hola.split('/')[4]).not.toBe(res.body.hola.split('/')[4]);
    });

    it('the sender need not be the caller', async () => {
      const other = newKey();
      const { tokenId } = await mintPassport(app, { owner: other });
      const res = await test({ hola: holaLine(app, { sender: tokenId, signer: other.signer }) });
      expect(res.body).toMatchObject({
        valid: true,
        peerTokenId: tokenId,
        serverDestinatary: caller.tokenId,
      });
    });

    it('a subagent line is marked as verify marks it: subagent fields and DELEGATION_NOT_CHECKED', async () => {
      // Found by a probe: a self-signed subagent line naming the caller's passport came back as that
      // passport, valid and peerVerified, with nothing to tell it from the passport's own line.
      const res = await test({
        hola: own({ signer: newKey().signer, subagent: { delegateId: 'helper-7' } }),
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        valid: true,
        peerTokenId: caller.tokenId,
        isSubagentFormat: true,
        delegateId: 'HELPER-7',
        issuerTokenId: caller.tokenId,
        warnings: [{ code: 'DELEGATION_NOT_CHECKED', message: expect.any(String) }],
      });
      await expectMatchesOpenApi(app.baseUrl, 'POST', '/api/testhola', res.status, res.body);
      const plain = await test({ hola: own() });
      expect([plain.body.isSubagentFormat, plain.body.warnings]).toEqual([undefined, undefined]);
    });

    it('warns RECIPIENT_MISMATCH when the line is for neither MUNDO nor this server, unless expectedRecipient says so', async () => {
      const peer = randomFaceTokenId(cryptoRandomInt).toUpperCase();
      const warned = await test({ hola: own({ recipient: peer }) });
      expect(warned.body.warnings).toEqual([{ code: 'RECIPIENT_MISMATCH', message: expect.any(String) }]);
      // The passport checking the line here is the server's: an audit found it named as "the caller".
      const server = (warned.body.serverTokenId as string).toUpperCase();
      expect(warned.body.warnings[0].message).toBe(
        `The line is addressed to ${peer}, not to ${server}, the passport checking it.`,
      );
      const expected = await test({ hola: own({ recipient: peer }), expectedRecipient: peer });
      expect(expected.status).toBe(200);
      expect(expected.body.warnings).toBeUndefined();
      expect((await test({ hola: own() })).body.warnings).toBeUndefined();
    });
  });
});
