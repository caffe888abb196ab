/**
 * The client's login body: its signature is checked against one made with @noble/curves directly over
 * the message the resolutions define (UTF-8 `identifier + timestamp_iso`), and the server's own reading
 * (`validateLoginRequest`) takes the body as sent.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import fc from 'fast-check';
import { createNobleSigner } from '../crypto/noble.signer.js';
import { buildLoginRequest } from './login-request.builder.js';
import { validateLoginRequest } from './login-request.validator.js';

const seed = new Uint8Array(32).fill(3);
const signer = createNobleSigner(seed);
const timestampIso = '2026-11-26T05:00:00.000Z';
const independent = (message: string) =>
  Buffer.from(ed25519.sign(new TextEncoder().encode(message), seed)).toString('base64url');

describe('buildLoginRequest', () => {
  it('a passport login: passportid, the challenge text and the owner signature over both', () => {
    const body = buildLoginRequest({ identity: { passportId: 'bjbvcjzqbdsj' }, timestampIso, signer });
    expect(body).toEqual({
      passportid: 'bjbvcjzqbdsj',
      timestamp_iso: timestampIso,
      passportid_base64url_signature: independent(`bjbvcjzqbdsj${timestampIso}`),
    });
  });

  it('an account login signs the account id as written', () => {
    const body = buildLoginRequest({ identity: { accountId: 'alice.near' }, timestampIso, signer });
    expect(body).toEqual({
      accountid: 'alice.near',
      timestamp_iso: timestampIso,
      base64url_signature: independent(`alice.near${timestampIso}`),
    });
  });

  it('the server reads every body it builds as that identity, instant and signature', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4_102_444_800 }),
        fc.boolean(),
        fc.stringMatching(/^[a-z]{12}$/),
        (seconds, asPassport, id) => {
          const iso = new Date(seconds * 1000).toISOString();
          const identity = asPassport ? { passportId: id } : { accountId: `${id}.near` };
          const read = validateLoginRequest(buildLoginRequest({ identity, timestampIso: iso, signer }));
          expect(read.identifierKind).toBe(asPassport ? 'passportid' : 'accountid');
          expect(read.timestampSeconds).toBe(seconds);
          expect(
            ed25519.verify(
              read.signature!,
              new TextEncoder().encode(read.identifier + iso),
              signer.publicKey,
            ),
          ).toBe(true);
        },
      ),
      { numRuns: 50 },
    );
  });

  // Found by a probe: a fake server's timestamp_iso ":evil-agent:<unix>:<key>" made the owner key sign
  // `<tokenId>:evil-agent:<unix>:<key>`, a delegation (protocol §6) the real service accepted.
  it.each([
    ':evil-agent:1795000000:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    '2026-11-26T05:00:00Z',
    '2026-11-26T05:00:00.123Z',
    '2026-11-26T05:00:00.000+00:00',
    '2026-11-26',
    '1795000000',
    ' 2026-11-26T05:00:00.000Z',
    '',
  ])('signs nothing for a challenge text that is not a challenge time: %j', (text) => {
    const signed: Uint8Array[] = [];
    const sign = (message: Uint8Array) => (signed.push(message), signer.sign(message));
    expect(() =>
      buildLoginRequest({ identity: { passportId: 'bjbvcjzqbdsj' }, timestampIso: text, signer: { sign } }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_LOGIN_TIMESTAMP' }));
    expect(signed).toEqual([]);
  });

  it.each([
    [{ passportId: 'bjbvcjzqbdsj:evil' }],
    [{ passportId: '' }],
    [{ accountId: 'alice.near:x' }],
    [{ accountId: '' }],
    [{ passportId: 42 as unknown as string }],
  ])('signs nothing for an identity that is no token id or account id: %j', (identity) => {
    const signed: Uint8Array[] = [];
    const sign = (message: Uint8Array) => (signed.push(message), signer.sign(message));
    expect(() => buildLoginRequest({ identity, timestampIso, signer: { sign } })).toThrow(
      expect.objectContaining({ code: 'MISSING_LOGIN_IDENTIFIER' }),
    );
    expect(signed).toEqual([]);
  });

  it('refuses an identity with both ids, signing nothing (the server refuses such a body whole)', () => {
    const signed: Uint8Array[] = [];
    const recording = { sign: (message: Uint8Array) => (signed.push(message), signer.sign(message)) };
    const identity = { passportId: 'bjbvcjzqbdsj', accountId: 'alice.near' } as never;
    expect(() => buildLoginRequest({ identity, timestampIso, signer: recording })).toThrow(
      expect.objectContaining({ code: 'LOGIN_IDENTIFIER_AMBIGUOUS' }),
    );
    expect(signed).toEqual([]);
    // A key left undefined is no second id (JSON.stringify drops it): the body is built.
    const loose = { passportId: 'bjbvcjzqbdsj', accountId: undefined } as never;
    expect(buildLoginRequest({ identity: loose, timestampIso, signer })).toMatchObject({
      passportid: 'bjbvcjzqbdsj',
    });
  });

  it.each([
    ['no parameters', undefined],
    ['no identity', { timestampIso, signer }],
    ['no signer', { identity: { passportId: 'bjbvcjzqbdsj' }, timestampIso }],
  ])('%s (from JavaScript) → a TypeError naming what is missing', (_what, params) => {
    expect(() => buildLoginRequest(params as never)).toThrow(/buildLoginRequest: (identity|signer)/);
  });
});
