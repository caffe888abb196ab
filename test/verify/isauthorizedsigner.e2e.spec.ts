/**
 * POST /api/isauthorizedsigner over real HTTP, and the client library's `verifySubagent` end to end
 * (its two calls are this API's verify and isauthorizedsigner over HTTP). Errors first.
 */
import { randomBytes } from 'node:crypto';
import { signDelegation, verifySubagent } from '@passport/core';
import { type DelegationRequestBody } from '@passport/core/delegation';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import { bearer, mintAndLogin, mintPassport, newKey, type TestKey } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { holaLine, postJson, serviceHostOf } from './hola-lines.js';

describe('POST /api/isauthorizedsigner', () => {
  let app: TestApp;
  let post: ReturnType<typeof postJson>;
  let jwt: string;
  let owner: TestKey;
  let tokenId: string;
  const delegate = newKey();

  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
    post = postJson(app);
    ({ jwt } = await mintAndLogin(app));
    owner = newKey();
    ({ tokenId } = await mintPassport(app, { owner }));
  });
  afterAll(() => app.close());

  const delegation = (overrides: Partial<Parameters<typeof signDelegation>[0]> = {}): DelegationRequestBody =>
    signDelegation({
      tokenId,
      delegateId: 'research-bot-1',
      unixTimestamp: Math.floor(Date.now() / 1000),
      delegatePublicKey: delegate.signer.publicKey,
      ownerSigner: owner.signer,
      ...overrides,
    });
  const check = (body: unknown, token: string | null = jwt) =>
    post('/api/isauthorizedsigner', body, token ? bearer(token) : {});

  it('needs a valid bearer token', async () => {
    expectErrorEnvelope(await check(delegation(), null), 'MISSING_TOKEN');
  });

  it('validation → 400 ISAUTHORIZEDSIGNER_<FIELD>_<PROBLEM>', async () => {
    const good = delegation();
    for (const [body, code] of [
      [[], 'ISAUTHORIZEDSIGNER_BODY_INVALID'],
      [{ ...good, tokenId: undefined }, 'ISAUTHORIZEDSIGNER_TOKENID_MISSING'],
      [{ ...good, tokenId: 'ABC' }, 'ISAUTHORIZEDSIGNER_TOKENID_INVALID'],
      [
        { ...good, base64HashOrDelegateSignerId: 'x'.repeat(129) },
        'ISAUTHORIZEDSIGNER_BASE64HASHORDELEGATESIGNERID_INVALID_LENGTH',
      ],
      [{ ...good, unixTimestamp: '1' }, 'ISAUTHORIZEDSIGNER_UNIXTIMESTAMP_INVALID'],
      [{ ...good, publicKey: '***' }, 'ISAUTHORIZEDSIGNER_PUBLICKEY_DECODE_FAILED'],
      [
        { ...good, publicKey: Buffer.from(randomBytes(31)).toString('base64url') },
        'ISAUTHORIZEDSIGNER_PUBLICKEY_INVALID_LENGTH',
      ],
      [{ ...good, signature: undefined }, 'ISAUTHORIZEDSIGNER_SIGNATURE_MISSING'],
    ] as const) {
      const res = await check(body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(code);
      expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
    }
  });

  it('an unknown passport → 404 TOKEN_NOT_FOUND', async () => {
    const res = await check(delegation({ tokenId: 'zzzzzzzzzzzz' }));
    expect(expectErrorEnvelope(res, 'TOKEN_NOT_FOUND').error.details).toEqual({ tokenId: 'zzzzzzzzzzzz' });
  });

  it('a delegation not signed by the owner, or for an inactive passport, is not authorized', async () => {
    const forged = await check(delegation({ ownerSigner: newKey().signer }));
    expect(forged.body).toMatchObject({
      authorized: false,
      checks: { tokenExists: true, tokenActive: true, publicKeyAuthorized: false },
      failureReasons: ['signature_invalid'],
    });
    const revokedOwner = newKey();
    const revoked = await mintPassport(app, { owner: revokedOwner, revoked: true });
    const res = await check(delegation({ tokenId: revoked.tokenId, ownerSigner: revokedOwner.signer }));
    expect(res.body).toMatchObject({
      authorized: false,
      checks: { tokenActive: false, publicKeyAuthorized: true },
      failureReasons: ['token_revoked'],
    });
  });

  it('200 authorized for a delegation the owner signed', async () => {
    const res = await check(delegation());
    expect(res.body).toEqual({
      authorized: true,
      tokenId,
      base64HashOrDelegateSignerId: 'research-bot-1',
      checks: { tokenExists: true, tokenActive: true, publicKeyAuthorized: true },
      failureReasons: [],
      requestId: res.headers.get('x-request-id'),
    });
  });

  describe("the client library's verifySubagent over this API", () => {
    const calls = () => ({
      verifyHola: async (hola: string) => (await post('/api/identity/verify', { hola })).body,
      isAuthorizedSigner: async (body: DelegationRequestBody) => (await check(body)).body,
    });
    const subagentLine = (signer = delegate.signer, delegateId = 'research-bot-1') =>
      holaLine(app, { sender: tokenId, signer, subagent: { delegateId } });

    it('valid: the line verifies, the delegation is authorized, and key, issuer and delegate id agree', async () => {
      const result = await verifySubagent(calls(), {
        hola: subagentLine(),
        serviceHost: serviceHostOf(app),
        delegation: delegation(),
      });
      expect(result).toMatchObject({
        valid: true,
        issuerTokenId: tokenId,
        delegateId: 'RESEARCH-BOT-1',
        reasons: [],
      });
    });

    it('invalid: another key in the line, another delegate id, or a delegation the owner did not sign', async () => {
      const input = (hola: string, body = delegation()) => ({
        hola,
        serviceHost: serviceHostOf(app),
        delegation: body,
      });
      expect((await verifySubagent(calls(), input(subagentLine(newKey().signer)))).reasons).toEqual([
        'public_key_mismatch',
      ]);
      expect(
        (await verifySubagent(calls(), input(subagentLine(delegate.signer, 'other-bot')))).reasons,
      ).toEqual(['delegate_id_mismatch']);
      expect(
        (await verifySubagent(calls(), input(subagentLine(), delegation({ ownerSigner: newKey().signer }))))
          .reasons,
      ).toEqual(['delegation_not_authorized']);
      const replayed = subagentLine();
      await verifySubagent(calls(), input(replayed));
      expect((await verifySubagent(calls(), input(replayed))).reasons).toEqual(['hola_not_verified']);
    });
  });
});
