import { createNobleSigner } from '../crypto/noble.signer.js';
import { buildHolaLine } from '../hola/hola.builder.js';
import { encodeBase32 } from '../codecs/base32.codec.js';
import { type DelegationCheckResult, signDelegation } from './delegation.js';
import { compareSubagent, verifySubagent, type HolaVerdict } from './subagent-verification.js';

const owner = createNobleSigner(new Uint8Array(32).fill(1));
const subagent = createNobleSigner(new Uint8Array(32).fill(2));
const other = createNobleSigner(new Uint8Array(32).fill(3));
const serviceHost = 'localhost:3000';
const line = (signer = subagent, delegateId = 'bot-7', issuer = 'bjbvcjzqbdsj') =>
  buildHolaLine({
    senderTokenId: issuer,
    timestamp: '2026-01-01T00:00:00.000Z',
    nonceHex: '0123456789ABCDEF0123456789ABCDEF',
    serviceHost,
    signer,
    subagent: { delegateId },
  });
const delegation = (key = subagent.publicKey, delegateId = 'bot-7', tokenId = 'bjbvcjzqbdsj') =>
  signDelegation({
    tokenId,
    delegateId,
    unixTimestamp: 1_767_225_600,
    delegatePublicKey: key,
    ownerSigner: owner,
  });
const authorized = (d = delegation(), ok = true): DelegationCheckResult => ({
  authorized: ok,
  tokenId: d.tokenId,
  base64HashOrDelegateSignerId: d.base64HashOrDelegateSignerId,
  checks: { tokenExists: true, tokenActive: true, publicKeyAuthorized: ok },
  failureReasons: ok ? [] : ['signature_invalid'],
});
const verified: HolaVerdict = { verified: true, failureReasons: [] };

describe('compareSubagent', () => {
  it('is valid when the line verified, the delegation is authorized and issuer, id and key agree', () => {
    const d = delegation();
    expect(compareSubagent({ hola: line(), serviceHost, delegation: d }, verified, authorized(d))).toEqual({
      valid: true,
      issuerTokenId: 'bjbvcjzqbdsj',
      delegateId: 'BOT-7',
      subagentPublicKeyBase32: encodeBase32(subagent.publicKey),
      reasons: [],
    });
  });

  // A mutation probe: `verified === false` in place of `!== true` passed. An error body read as a verdict
  // has no `verified`; only `true` is a verified line (and only `authorized: true` an authorization).
  it('fails closed on a verdict that is not exactly verified: true or authorized: true', () => {
    const d = delegation();
    const input = { hola: line(), serviceHost, delegation: d };
    const noVerdict = {} as HolaVerdict;
    expect(compareSubagent(input, noVerdict, authorized(d)).reasons).toEqual(['hola_not_verified']);
    const stringly = { verified: 'true' } as unknown as HolaVerdict;
    expect(compareSubagent(input, stringly, authorized(d)).valid).toBe(false);
    const loose = { ...authorized(d), authorized: 1 } as unknown as DelegationCheckResult;
    expect(compareSubagent(input, verified, loose).reasons).toEqual(['delegation_not_authorized']);
  });

  it('compares delegate ids case-insensitively (lines are uppercased)', () => {
    const d = delegation(subagent.publicKey, 'Bot-7');
    expect(compareSubagent({ hola: line(), serviceHost, delegation: d }, verified, authorized(d)).valid).toBe(
      true,
    );
  });

  it.each([
    [
      'the line did not verify',
      () => ({ hola: line(), d: delegation(), hola_: { verified: false }, ok: true }),
      ['hola_not_verified'],
    ],
    [
      'the delegation is not authorized',
      () => ({ hola: line(), d: delegation(), hola_: verified, ok: false }),
      ['delegation_not_authorized'],
    ],
    [
      'another key was delegated',
      () => ({ hola: line(), d: delegation(other.publicKey), hola_: verified, ok: true }),
      ['public_key_mismatch'],
    ],
    [
      'the line is signed by another key',
      () => ({ hola: line(other), d: delegation(), hola_: verified, ok: true }),
      ['public_key_mismatch'],
    ],
    [
      'another delegate id',
      () => ({ hola: line(), d: delegation(subagent.publicKey, 'bot-8'), hola_: verified, ok: true }),
      ['delegate_id_mismatch'],
    ],
    [
      'another issuer',
      () => ({
        hola: line(),
        d: delegation(subagent.publicKey, 'bot-7', 'lhsrldbjsnlh'),
        hola_: verified,
        ok: true,
      }),
      ['issuer_mismatch'],
    ],
  ])('is invalid when %s', (_label, make, reasons) => {
    const { hola, d, hola_, ok } = make();
    const result = compareSubagent({ hola, serviceHost, delegation: d }, hola_, authorized(d, ok));
    expect(result.valid).toBe(false);
    expect(result.reasons).toEqual(reasons);
  });

  it('is invalid for a standard line, a malformed delegation, or a result about another delegation', () => {
    const d = delegation();
    const standard = buildHolaLine({
      senderTokenId: 'bjbvcjzqbdsj',
      timestamp: '2026-01-01T00:00:00.000Z',
      nonceHex: '0123456789ABCDEF0123456789ABCDEF',
      serviceHost,
      signer: owner,
    });
    expect(
      compareSubagent({ hola: standard, serviceHost, delegation: d }, verified, authorized(d)).reasons,
    ).toEqual(['not_a_subagent_line']);
    const broken = { ...d, publicKey: '***' };
    expect(
      compareSubagent({ hola: line(), serviceHost, delegation: broken }, verified, authorized(d)).reasons,
    ).toEqual([
      'delegation_not_authorized',
      'issuer_mismatch',
      'delegate_id_mismatch',
      'public_key_mismatch',
    ]);
    const elsewhere = authorized(delegation(subagent.publicKey, 'bot-9'));
    expect(
      compareSubagent({ hola: line(), serviceHost, delegation: d }, verified, elsewhere).reasons,
    ).toEqual(['delegation_not_authorized']);
  });
});

describe('verifySubagent', () => {
  it('calls both injected checks with the line and the delegation, then compares', async () => {
    const d = delegation();
    const hola = line();
    const seen: unknown[] = [];
    const result = await verifySubagent(
      {
        verifyHola: async (h) => (seen.push(h), verified),
        isAuthorizedSigner: async (body) => (seen.push(body), authorized(body)),
      },
      { hola, serviceHost, delegation: d },
    );
    expect(seen).toEqual([hola, d]);
    expect(result.valid).toBe(true);
  });
});
