/**
 * POST /api/identity/verify over real HTTP against the real app (sqlite store, ledger chain), every
 * response checked against the served OpenAPI document. Negative cases first: every early-validation
 * reasonCode and every 200 failureReason produced by a real line, in both line forms; then the
 * successes, the profile, the RECIPIENT_MISMATCH rules and the single-use record under concurrency.
 */
import { randomFaceTokenId, buildPublicProfile } from '@passport/core';
import { cryptoRandomInt } from '@passport/core/token-id';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import {
  addNamedAccount,
  bearer,
  mintAndLogin,
  mintPassport,
  newKey,
  type TestKey,
} from '../support/passports.js';
import { expectMatchesOpenApi } from '../support/openapi-contract.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { holaLine, postJson, withSlot } from './hola-lines.js';

const STAGE = 'format_checksum_and_payload_validation';

describe('POST /api/identity/verify', () => {
  let app: TestApp;
  let post: ReturnType<typeof postJson>;
  let owner: TestKey;
  let tokenId: string;

  beforeAll(async () => {
    app = await startTestApp();
    post = postJson(app);
    owner = newKey();
    ({ tokenId } = await mintPassport(app, { owner }));
  });
  afterAll(() => app.close());

  const verify = (body: unknown, headers?: Record<string, string>) =>
    post('/api/identity/verify', body, headers);
  const standard = (overrides: Partial<Parameters<typeof holaLine>[1]> = {}) =>
    holaLine(app, { sender: tokenId, signer: owner.signer, ...overrides });
  const subagent = (overrides: Partial<Parameters<typeof holaLine>[1]> = {}) =>
    holaLine(app, {
      sender: tokenId,
      signer: newKey().signer,
      subagent: { delegateId: 'research-bot-1' },
      ...overrides,
    });

  describe('early validation: 400 HOLA_VALIDATION_FAILED with every reasonCode', () => {
    const expectReason = async (hola: unknown, reasonCode: string) => {
      const res = await verify({ hola });
      const body = expectErrorEnvelope(res, 'HOLA_VALIDATION_FAILED');
      expect(body.error.details).toMatchObject({ reasonCode, stage: STAGE, hint: expect.any(String) });
      return body;
    };

    it('payload_is_json_object: an object, an array, or a string holding a JSON object', async () => {
      await expectReason({ hola: standard() }, 'payload_is_json_object');
      await expectReason([standard()], 'payload_is_json_object');
      await expectReason(JSON.stringify({ hola: standard() }), 'payload_is_json_object');
    });

    it.each([
      ['standard', 8],
      ['subagent', 10],
    ] as const)('invalid_format (%s form): every shape problem', async (form, count) => {
      const line = form === 'standard' ? standard() : subagent();
      expect(line.split('/')).toHaveLength(count);
      await expectReason(42, 'invalid_format');
      await expectReason(line.replace(/^HOLA/, 'HELO'), 'invalid_format');
      await expectReason(line + '/EXTRA', 'invalid_format');
      await expectReason(line + 'A'.repeat(600), 'invalid_format');
      await expectReason(withSlot(line, -3, 'EVIL.EXAMPLE.COM'), 'invalid_format'); // host marker
      await expectReason(withSlot(line, -4, 'XYZ'), 'invalid_format'); // nonce
      await expectReason(withSlot(line, 1, 'NOTATOKEN'), 'invalid_format'); // recipient
      await expectReason(withSlot(line, form === 'standard' ? 2 : 3, 'SHORT'), 'invalid_format'); // sender / issuer
      await expectReason(withSlot(line, -5, '2026-04-19 10:47'), 'invalid_format'); // timestamp grammar
      if (form === 'subagent') {
        await expectReason(withSlot(line, 4, 'AAAA'), 'invalid_format'); // embedded key
        await expectReason(withSlot(line, 2, 'D'.repeat(129)), 'invalid_format'); // delegate id
      }
    });

    it('a missing hola or an empty body is invalid_format, never a 500', async () => {
      await expectReason(undefined, 'invalid_format');
      const res = await verify(null);
      expect(expectErrorEnvelope(res, 'HOLA_VALIDATION_FAILED').error.details!.reasonCode).toBe(
        'invalid_format',
      );
    });

    it.each(['standard', 'subagent'] as const)('the lints (%s form)', async (form) => {
      const line = form === 'standard' ? standard() : subagent();
      await expectReason(withSlot(line, -5, String(Date.now())), 'unix_millis_timestamp');
      await expectReason(withSlot(line, -2, '<SIGNATURE>'), 'placeholder_signature');
      await expectReason(withSlot(line, -2, 'PLACEHOLDER'), 'placeholder_signature');
      await expectReason(withSlot(line, -2, 'ABC...'), 'placeholder_signature');
      await expectReason(withSlot(line, -2, '1'.repeat(103)), 'signature_not_base32');
      await expectReason(withSlot(line, -2, 'A'.repeat(102)), 'signature_not_base32');
    });

    it.each(['standard', 'subagent'] as const)(
      'checksum_invalid names expected and received (%s form)',
      async (form) => {
        const line = form === 'standard' ? standard() : subagent();
        const good = line.at(-1)!;
        const bad = good === 'A' ? 'B' : 'A';
        const body = await expectReason(withSlot(line, -1, bad, true), 'checksum_invalid');
        expect(body.error.details).toMatchObject({ expected: good, received: bad });
        expect(body.error.message).toContain(good);
      },
    );
  });

  describe('constraints and the optional bearer token', () => {
    it.each([0, -1, 86_400_001, 1.5, '300000', null])(
      'maxAgeMs %j → 400 INVALID_CONSTRAINTS',
      async (maxAgeMs) => {
        const res = await verify({ hola: standard(), constraints: { maxAgeMs } });
        if (maxAgeMs === null) {
          expect(expectErrorEnvelope(res, 'INVALID_CONSTRAINTS').error.details).toMatchObject({
            field: 'constraints.maxAgeMs',
          });
        } else {
          expectErrorEnvelope(res, 'INVALID_CONSTRAINTS');
        }
      },
    );

    it('constraints that are not an object → 400 INVALID_CONSTRAINTS', async () => {
      expectErrorEnvelope(await verify({ hola: standard(), constraints: 5 }), 'INVALID_CONSTRAINTS');
      expectErrorEnvelope(await verify({ hola: standard(), constraints: [1] }), 'INVALID_CONSTRAINTS');
    });

    // A probe: a wrongly typed option was ignored (`expectedRecipient: 5` checked nothing).
    it('an option of the wrong type → 400 INVALID_VERIFY_OPTION naming it; null is absent', async () => {
      const wrong = await verify({ hola: standard(), expectedRecipient: 5 });
      expect(expectErrorEnvelope(wrong, 'INVALID_VERIFY_OPTION').error.details).toEqual({
        field: 'expectedRecipient',
        reason: 'must be a string',
      });
      expectErrorEnvelope(await verify({ hola: standard(), includeProfile: 'yes' }), 'INVALID_VERIFY_OPTION');
      expect((await verify({ hola: standard(), includeProfile: null, expectedRecipient: null })).status).toBe(
        200,
      );
    });

    it('an invalid bearer token is a 401 even on this public route', async () => {
      const garbage = await verify({ hola: standard() }, { authorization: 'Bearer not.a.jwt' });
      expect(expectErrorEnvelope(garbage, 'INVALIDATED_TOKEN').error.details).toMatchObject({
        reason: 'invalid_jwt_format',
      });
      const forged = await verify(
        { hola: standard() },
        { authorization: 'Bearer eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2ln' },
      );
      expectErrorEnvelope(forged, 'INVALIDATED_TOKEN');
    });
  });

  describe('200 verdicts: every failureReason from a real line', () => {
    const expectFailure = async (hola: string, reasons: string[], body: Record<string, unknown> = {}) => {
      const res = await verify({ hola, ...body });
      expect(res.status).toBe(200);
      expect(res.body.verified).toBe(false);
      expect(res.body.failureReasons).toEqual(reasons);
      expect(res.body.failureDetails.map((d: { reasonCode: string }) => d.reasonCode)).toEqual(reasons);
      for (const detail of res.body.failureDetails) expect(detail.hint.length).toBeGreaterThan(10);
      expect(res.body.signatureVerificationImplemented).toBe(true);
      expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
      return res.body;
    };

    it('signed with a wrong key → signature_invalid', async () => {
      const body = await expectFailure(standard({ signer: newKey().signer }), ['signature_invalid']);
      expect(body.checks).toEqual({
        tokenExists: true,
        tokenActive: true,
        timestampFresh: true,
        signatureValid: false,
        checksumValid: true,
      });
    });

    it("signed with another passport's owner key → signature_invalid", async () => {
      const other = newKey();
      await mintPassport(app, { owner: other });
      await expectFailure(standard({ signer: other.signer }), ['signature_invalid']);
    });

    it('stale just past the window → timestamp_stale_or_future; a wider maxAgeMs accepts it', async () => {
      const old = standard({ shiftMs: -302_000 });
      const body = await expectFailure(old, ['timestamp_stale_or_future']);
      expect(body.checks.timestampFresh).toBe(false);
      expect(body.checks.signatureValid).toBe(true);
      const wider = await verify({ hola: old, constraints: { maxAgeMs: 600_000 } });
      expect(wider.body.verified).toBe(true);
      await expectFailure(standard({ shiftMs: -3000 }), ['timestamp_stale_or_future'], {
        constraints: { maxAgeMs: 1000 },
      });
    });

    it('from the future → timestamp_stale_or_future (HOLA_FUTURE_SKEW_MS defaults to 0)', async () => {
      await expectFailure(standard({ shiftMs: 5000 }), ['timestamp_stale_or_future']);
    });

    it('replayed → nonce_replay with nonceReplayDetails', async () => {
      const line = standard();
      const first = await verify({ hola: line, constraints: { maxAgeMs: 120_000 } });
      expect(first.body.verified).toBe(true);
      const body = await expectFailure(line, ['nonce_replay'], { constraints: { maxAgeMs: 120_000 } });
      expect(body.checks.nonceReplaySafe).toBe(false);
      expect(body.nonceReplayDetails).toEqual({
        holaTimestamp: line.split('/')[3],
        maxAgeMs: 120_000,
        firstSeenAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
      // Lines are case-insensitive: the lowercase spelling is the same line.
      await expectFailure(line.toLowerCase(), ['nonce_replay']);
    });

    it('a passport past not_after, before not_before, or revoked → token_expired', async () => {
      for (const options of [
        { metadata: { not_after: '2020-01-01T00:00:00Z' } },
        { metadata: { not_before: '2999-01-01T00:00:00Z' } },
        { revoked: true },
      ]) {
        const key = newKey();
        const minted = await mintPassport(app, { owner: key, ...options });
        const body = await expectFailure(holaLine(app, { sender: minted.tokenId, signer: key.signer }), [
          'token_expired',
        ]);
        expect(body.checks).toMatchObject({ tokenExists: true, tokenActive: false, signatureValid: true });
      }
    });

    it('an unknown token → token_missing', async () => {
      const body = await expectFailure(
        holaLine(app, { sender: randomFaceTokenId(cryptoRandomInt), signer: owner.signer }),
        ['token_missing'],
      );
      expect(body.checks).toEqual({ tokenExists: false, timestampFresh: true, checksumValid: true });
    });

    it('a named owner account without keys → public_key_unavailable', async () => {
      const minted = await mintPassport(app, { owner: 'keyless.test' });
      await addNamedAccount(app, 'keyless.test', []);
      await expectFailure(holaLine(app, { sender: minted.tokenId, signer: owner.signer }), [
        'public_key_unavailable',
      ]);
    });

    it('several failures are all reported, in the spec order', async () => {
      const key = newKey();
      const minted = await mintPassport(app, { owner: key, revoked: true });
      await expectFailure(
        holaLine(app, { sender: minted.tokenId, signer: newKey().signer, shiftMs: -400_000 }),
        ['timestamp_stale_or_future', 'token_expired', 'signature_invalid'],
      );
    });

    it('subagent lines: the embedded key must have signed; the issuer must exist', async () => {
      const delegate = newKey();
      const forged = withSlot(subagent({ signer: delegate.signer }), 4, subagent().split('/')[4]);
      await expectFailure(forged, ['signature_invalid']);
      const body = await expectFailure(
        holaLine(app, {
          sender: randomFaceTokenId(cryptoRandomInt),
          signer: delegate.signer,
          subagent: { delegateId: 'x' },
        }),
        ['token_missing'],
      );
      expect(body.isSubagentFormat).toBe(true);
      await expectFailure(subagent({ shiftMs: -301_000 }), ['timestamp_stale_or_future']);
    });
  });

  describe('200 verified', () => {
    it('a standard line from an implicit account', async () => {
      const res = await verify({ hola: standard() });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        verified: true,
        peerTokenId: tokenId,
        destinatary: 'MUNDO',
        checks: {
          tokenExists: true,
          tokenActive: true,
          timestampFresh: true,
          nonceReplaySafe: true,
          signatureValid: true,
          checksumValid: true,
        },
        failureReasons: [],
        failureDetails: [],
        signatureVerificationImplemented: true,
        requestId: res.headers.get('x-request-id'),
      });
    });

    it('a line signed by any full-access key of a named owner account', async () => {
      const keys = [newKey(), newKey()];
      await addNamedAccount(app, 'alice.test', keys);
      const minted = await mintPassport(app, { owner: 'alice.test' });
      for (const key of keys) {
        expect(
          (await verify({ hola: holaLine(app, { sender: minted.tokenId, signer: key.signer }) })).body
            .verified,
        ).toBe(true);
      }
    });

    it('a subagent line reports the subagent fields', async () => {
      const res = await verify({ hola: subagent() });
      expect(res.body).toMatchObject({
        verified: true,
        peerTokenId: tokenId,
        isSubagentFormat: true,
        delegateId: 'RESEARCH-BOT-1',
        issuerTokenId: tokenId,
      });
      // Found by a probe: a self-signed line naming any live passport verifies, and relying parties read
      // `verified` as "the issuer signed this". The body says whose signature it is.
      expect(res.body.warnings).toEqual([
        { code: 'DELEGATION_NOT_CHECKED', message: expect.stringContaining('/api/isauthorizedsigner') },
      ]);
      await expectMatchesOpenApi(app.baseUrl, 'POST', '/api/identity/verify', res.status, res.body);
      // A standard line carries no such warning.
      expect((await verify({ hola: standard() })).body.warnings).toBeUndefined();
    });

    it('a line addressed to a peer reports the lowercase destinatary', async () => {
      const peer = randomFaceTokenId(cryptoRandomInt);
      const res = await verify({ hola: standard({ recipient: peer.toUpperCase() }) });
      expect(res.body).toMatchObject({ verified: true, destinatary: peer });
      expect(res.body.warnings).toBeUndefined(); // no bearer, no expectedRecipient
    });
  });

  describe('profile', () => {
    it('includeProfile: true returns the public profile under `profile`', async () => {
      const key = newKey();
      const minted = await mintPassport(app, {
        owner: key,
        metadata: {
          userselected_dn: 'NNSWF=Ada,NSWF=Lovelace,Creature=owl,ContactURI=mailto:ada:example.org',
          webhook_url: 'https://hooks.example.org',
        },
      });
      const res = await verify({
        hola: holaLine(app, { sender: minted.tokenId, signer: key.signer }),
        includeProfile: true,
      });
      expect(res.body.verified).toBe(true);
      expect(res.body.profile).toEqual({
        tokenId: minted.tokenId,
        did: `did:passport:${minted.tokenId}`,
        ownerAccountId: key.accountId,
        displayName: 'Ada Lovelace',
        creature: 'owl',
        contactUris: ['mailto:ada:example.org'],
        avatarUrl: null,
        emojiUrl: null,
        webhookUrl: 'https://hooks.example.org',
        face: expect.objectContaining({ checksumValid: true }),
      });
      const plain = await verify({ hola: standard() });
      expect(plain.body.profile).toBeUndefined();
    });

    it('a missing token still answers, with profile.error = profile_unavailable', async () => {
      const ghost = randomFaceTokenId(cryptoRandomInt);
      const res = await verify({
        hola: holaLine(app, { sender: ghost, signer: owner.signer }),
        includeProfile: true,
      });
      expect(res.body.profile).toMatchObject({
        tokenId: ghost,
        error: 'profile_unavailable',
        ownerAccountId: null,
      });
      expect(res.body.profile.face).toEqual(
        buildPublicProfile({ tokenId: ghost, ownerId: '', metadata: {} }).face,
      );
    });
  });

  describe('warnings: RECIPIENT_MISMATCH', () => {
    let caller: { tokenId: string; jwt: string };
    beforeAll(async () => {
      caller = await mintAndLogin(app);
    });
    const warningsOf = async (
      recipient: string | undefined,
      body: Record<string, unknown> = {},
      withBearer = true,
    ) => {
      const res = await verify(
        { hola: standard({ recipient }), ...body },
        withBearer ? bearer(caller.jwt) : {},
      );
      expect(res.status).toBe(200);
      expect(res.body.verified).toBe(true); // warnings never change the verdict
      return res.body.warnings;
    };
    const peer = () => randomFaceTokenId(cryptoRandomInt).toUpperCase();

    it('with a bearer token, a line for someone else warns', async () => {
      expect(await warningsOf(peer())).toEqual([{ code: 'RECIPIENT_MISMATCH', message: expect.any(String) }]);
    });
    it('no warning for MUNDO, for the caller, or without a bearer token', async () => {
      expect(await warningsOf(undefined)).toBeUndefined();
      expect(await warningsOf(caller.tokenId.toUpperCase())).toBeUndefined();
      expect(await warningsOf(peer(), {}, false)).toBeUndefined();
    });
    it('expectedRecipient suppresses the caller rule and warns only when it differs', async () => {
      const target = peer();
      expect(await warningsOf(target, { expectedRecipient: target.toLowerCase() })).toBeUndefined();
      expect(await warningsOf(target, { expectedRecipient: peer() })).toEqual([
        { code: 'RECIPIENT_MISMATCH', message: expect.any(String) },
      ]);
      expect(await warningsOf(undefined, { expectedRecipient: target }, false)).toEqual([
        { code: 'RECIPIENT_MISMATCH', message: expect.any(String) },
      ]);
    });
  });
});

describe('HOLA_FUTURE_SKEW_MS', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory', HOLA_FUTURE_SKEW_MS: '60000' });
  });
  afterAll(() => app.close());

  it('widens the lower freshness bound to the configured skew, and no further', async () => {
    const key = newKey();
    const { tokenId } = await mintPassport(app, { owner: key });
    const post = postJson(app);
    const ahead = await post('/api/identity/verify', {
      hola: holaLine(app, { sender: tokenId, signer: key.signer, shiftMs: 30_000 }),
    });
    expect(ahead.body.verified).toBe(true);
    const tooFar = await post('/api/identity/verify', {
      hola: holaLine(app, { sender: tokenId, signer: key.signer, shiftMs: 90_000 }),
    });
    expect(tooFar.body.failureReasons).toEqual(['timestamp_stale_or_future']);
  });
});
