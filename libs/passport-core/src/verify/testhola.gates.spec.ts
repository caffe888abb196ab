/**
 * The gates of `/api/testhola` over real verifications (noble lane, in-memory ports): each failed
 * verdict becomes the error of the first gate it fails, with the hint beside verify's; a verified
 * line passes; a chain outage is a 500, never a verdict. Also the request readers of both routes.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { FixedClock, MemoryChainReader, MemoryReplayStore } from '../memory/index.js';
import { implicitAccountId } from '../codecs/account-id.js';
import { utf8 } from '../codecs/utf8.codec.js';
import { createNobleSigner } from '../crypto/noble.signer.js';
import { createNobleVerifier } from '../crypto/noble.verifier.js';
import { PassportError } from '../errors/passport.error.js';
import { buildHolaLine } from '../hola/hola.builder.js';
import { type Signer } from '../ports/signature-verifier.port.js';
import { testHolaGateError } from './testhola.gates.js';
import { testHolaRequestFromBody, verifyRequestFromBody } from './verify-hola-request.validator.js';
import { TESTHOLA_FAILURE_HINTS, VERIFY_FAILURE_HINTS } from './verify-hola.hints.js';
import { createHolaVerifier } from './verify-hola.use-case.js';

const SERVICE_HOST = 'passport.test:3000';
const T0 = Date.parse('2026-04-19T10:47:00.000Z');
const signerFor = (label: string): Signer => createNobleSigner(sha256(utf8(`testhola.gates.spec/${label}`)));
const owner = signerFor('owner');
const stranger = signerFor('stranger');
const SENDER = 'chbvcnurbkuw';
const EXPIRED = 'lhsrldbjsnlh';
const MISSING = 'gygygygygygt';

let nonce = 0;
const line = (opts: { signer?: Signer; sender?: string; timestamp?: string } = {}) =>
  buildHolaLine({
    senderTokenId: opts.sender ?? SENDER,
    timestamp: opts.timestamp ?? new Date(T0).toISOString(),
    nonceHex: (++nonce).toString(16).toUpperCase().padStart(32, '0'),
    serviceHost: SERVICE_HOST,
    signer: opts.signer ?? owner,
  });

describe('testHolaGateError', () => {
  let clock: FixedClock;
  let chain: MemoryChainReader;
  const newVerifier = () =>
    createHolaVerifier({ chain, replay, clock, verifier: createNobleVerifier(), serviceHost: SERVICE_HOST });
  const gateOf = async (hola: string) => {
    return testHolaGateError(await newVerifier().verify({ hola }));
  };
  let replay: MemoryReplayStore;

  beforeEach(() => {
    clock = new FixedClock(T0 + 1_000);
    replay = new MemoryReplayStore();
    const passport = (tokenId: string, notAfter = '2027-01-01') => ({
      tokenId,
      ownerId: implicitAccountId(owner.publicKey),
      contractId: 'passport.test',
      metadata: { not_before: '2026-01-01', not_after: notAfter },
      revoked: false,
    });
    chain = new MemoryChainReader({
      contractId: 'passport.test',
      chainTime: clock,
      passports: [passport(SENDER), passport(EXPIRED, '2026-03-01')],
    });
  });

  it('a verified line passes every gate', async () => {
    expect(await gateOf(line())).toBeNull();
  });

  it('freshness first: a stale line that is also forged → HOLA_TIMESTAMP_INVALID with the ages', async () => {
    clock.set(T0 + 301_000);
    const error = await gateOf(line({ signer: stranger }));
    expect(error).toBeInstanceOf(PassportError);
    expect(error?.code).toBe('HOLA_TIMESTAMP_INVALID');
    expect(error?.message).toBe('The HOLA timestamp is 301 s old; at most 300 s are accepted.');
    expect(error?.details).toEqual({
      reasonCode: 'timestamp_stale_or_future',
      stage: 'timestamp_freshness_validation',
      hint: VERIFY_FAILURE_HINTS.timestamp_stale_or_future,
      ageSeconds: 301,
      maxAgeSeconds: 300,
      holaTimestamp: '2026-04-19T10:47:00.000Z',
    });
  });

  it('maxAgeSeconds is the whole seconds of the window (a maxAgeMs of 1500 accepts age 1, not 2)', async () => {
    clock.set(T0 + 2_000);
    const error = testHolaGateError(await newVerifier().verify({ hola: line(), maxAgeMs: 1_500 }));
    expect(error?.message).toBe('The HOLA timestamp is 2 s old; at most 1 s are accepted.');
    expect(error?.details).toMatchObject({ ageSeconds: 2, maxAgeSeconds: 1 });
  });

  it('a line from the future says how far ahead it is', async () => {
    const error = await gateOf(line({ timestamp: '2026-04-19T10:47:05.000Z' }));
    expect(error?.message).toBe('The HOLA timestamp is 4 s in the future.');
  });

  it.each([
    ['token_missing', { sender: MISSING }],
    ['token_expired', { sender: EXPIRED }],
    ['signature_invalid', { signer: stranger }],
  ] as const)('%s → HOLA_SIGNATURE_INVALID with the testhola hint', async (reasonCode, opts) => {
    const error = await gateOf(line(opts));
    expect(error?.code).toBe('HOLA_SIGNATURE_INVALID');
    expect(error?.details).toEqual({
      reasonCode,
      stage: 'signature_verification',
      hint: TESTHOLA_FAILURE_HINTS[reasonCode],
      peerTokenId: 'sender' in opts ? opts.sender : SENDER,
    });
  });

  it('an expired token signed by a stranger reports the first reason in the spec order', async () => {
    const error = await gateOf(line({ sender: EXPIRED, signer: stranger }));
    expect(error?.details).toMatchObject({ reasonCode: 'token_expired' });
  });

  it('a replay → HOLA_VALIDATION_FAILED nonce_replay with the first sighting', async () => {
    const hola = line();
    expect(await gateOf(hola)).toBeNull();
    const error = await gateOf(hola);
    expect(error?.code).toBe('HOLA_VALIDATION_FAILED');
    expect(error?.message).toBe('The nonce of this HOLA line was already used.');
    expect(error?.details).toEqual({
      reasonCode: 'nonce_replay',
      stage: 'nonce_replay_validation',
      hint: VERIFY_FAILURE_HINTS.nonce_replay,
      holaTimestamp: '2026-04-19T10:47:00.000Z',
      maxAgeMs: 300_000,
      firstSeenAt: new Date(T0 + 1_000).toISOString(),
    });
  });

  it('a chain outage → 500 VERIFY_FAILED chain_unavailable, not a verdict on the sender', async () => {
    chain.setUnavailable('timeout');
    const error = await gateOf(line());
    expect(error?.code).toBe('VERIFY_FAILED');
    expect(error?.details).toEqual({ reason: 'chain_unavailable' });
  });
});

describe('request readers', () => {
  it('verify: reads the fields it knows and passes the line and window on unchecked', () => {
    expect(
      verifyRequestFromBody(
        {
          hola: 7,
          constraints: { maxAgeMs: 'x' },
          includeProfile: true,
          expectedRecipient: 'MUNDO',
          extra: 1,
        },
        'bjbvcjzqbdsj',
      ),
    ).toEqual({
      hola: 7,
      maxAgeMs: 'x',
      includeProfile: true,
      callerTokenId: 'bjbvcjzqbdsj',
      expectedRecipient: 'MUNDO',
    });
    // null options are absent options.
    expect(verifyRequestFromBody({ hola: 'x', includeProfile: null, expectedRecipient: null }, null)).toEqual(
      {
        hola: 'x',
        maxAgeMs: undefined,
        includeProfile: false,
        callerTokenId: null,
      },
    );
  });

  // A probe: an option of the wrong type was ignored, so `expectedRecipient: 5` left the line's recipient
  // unchecked while its sender thought it checked.
  it.each([
    [{ includeProfile: 'yes' }, 'includeProfile', 'must be a boolean'],
    [{ includeProfile: 1 }, 'includeProfile', 'must be a boolean'],
    [{ expectedRecipient: 5 }, 'expectedRecipient', 'must be a string'],
    [{ expectedRecipient: ['MUNDO'] }, 'expectedRecipient', 'must be a string'],
  ])('verify: %p → INVALID_VERIFY_OPTION', (option, field, reason) => {
    expect(() => verifyRequestFromBody({ hola: 'x', ...option }, null)).toThrow(
      expect.objectContaining({ code: 'INVALID_VERIFY_OPTION', details: { field, reason } }),
    );
  });

  it.each([null, [], 'text', 3])('verify: a body %p reads as an empty request', (body) => {
    expect(verifyRequestFromBody(body, null)).toEqual({
      hola: undefined,
      maxAgeMs: undefined,
      includeProfile: false,
      callerTokenId: null,
    });
  });

  it.each([[[]], ['300000'], [true]])('verify: constraints %p → INVALID_CONSTRAINTS', (constraints) => {
    expect(() => verifyRequestFromBody({ hola: 'x', constraints }, null)).toThrow(
      expect.objectContaining({
        code: 'INVALID_CONSTRAINTS',
        details: { field: 'constraints', reason: 'must be an object' },
      }),
    );
  });

  it('verify: constraints null is absent', () => {
    expect(verifyRequestFromBody({ hola: 'x', constraints: null }, null).maxAgeMs).toBeUndefined();
  });

  it('testhola: the server stands in for the caller; constraints are not read', () => {
    expect(
      testHolaRequestFromBody({ hola: 'x', constraints: 'bad', expectedRecipient: 'MUNDO' }, 'chbvcnurbkuw'),
    ).toEqual({ hola: 'x', callerTokenId: 'chbvcnurbkuw', expectedRecipient: 'MUNDO' });
    expect(() => testHolaRequestFromBody({ hola: 'x', expectedRecipient: 5 }, 'chbvcnurbkuw')).toThrow(
      expect.objectContaining({ code: 'INVALID_VERIFY_OPTION' }),
    );
  });
});
