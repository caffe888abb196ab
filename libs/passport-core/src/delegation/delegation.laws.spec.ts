/**
 * Property laws of delegations (docs/protocol.md §4, §6): the validator's code equals a reference
 * written from the module's field table; every delegate id the validator accepts is one a subagent line
 * carries and compareSubagent matches; signDelegation round-trips through the validator and verifies.
 */
import fc from 'fast-check';
import { decodeBase64Flexible, encodeBase64Url } from '../codecs/base64url.codec.js';
import { hasUnprintable } from '../codecs/printable-text.js';
import { utf8 } from '../codecs/utf8.codec.js';
import { createNobleSigner } from '../crypto/noble.signer.js';
import { createNobleVerifier } from '../crypto/noble.verifier.js';
import { PassportError } from '../errors/passport.error.js';
import { buildHolaLine } from '../hola/hola.builder.js';
import { isLineDelegateId } from '../hola/delegate-id.js';
import {
  delegationMessage,
  signDelegation,
  validateDelegationRequest,
  type DelegationCheckResult,
} from './delegation.js';
import { compareSubagent } from './subagent-verification.js';

const owner = createNobleSigner(new Uint8Array(32).fill(1));
const subagent = createNobleSigner(new Uint8Array(32).fill(2));
const serviceHost = 'localhost:3000';
const KEY = encodeBase64Url(subagent.publicKey);
const SIG = encodeBase64Url(new Uint8Array(64).fill(9));

function referenceCode(body: unknown): string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'BODY_INVALID';
  const b = body as Record<string, unknown>;
  const absent = (v: unknown) => v === undefined || v === null || v === '';
  if (absent(b.tokenId)) return 'TOKENID_MISSING';
  if (typeof b.tokenId !== 'string' || !/^[a-z]{12}$/.test(b.tokenId)) return 'TOKENID_INVALID';
  const d = b.base64HashOrDelegateSignerId;
  if (absent(d)) return 'BASE64HASHORDELEGATESIGNERID_MISSING';
  if (typeof d !== 'string' || hasUnprintable(d) || !isLineDelegateId(d))
    return 'BASE64HASHORDELEGATESIGNERID_INVALID';
  if (d.length > 128 || d.toUpperCase().length > 128) return 'BASE64HASHORDELEGATESIGNERID_INVALID_LENGTH';
  const t = b.unixTimestamp;
  if (absent(t)) return 'UNIXTIMESTAMP_MISSING';
  if (typeof t !== 'number' || !Number.isSafeInteger(t) || t < 0) return 'UNIXTIMESTAMP_INVALID';
  for (const [field, name, n] of [
    ['publicKey', 'PUBLICKEY', 32],
    ['signature', 'SIGNATURE', 64],
  ] as const) {
    const v = b[field];
    if (absent(v)) return `${name}_MISSING`;
    if (typeof v !== 'string') return `${name}_INVALID`;
    const bytes = decodeBase64Flexible(v);
    if (!bytes) return `${name}_DECODE_FAILED`;
    if (bytes.length !== n) return `${name}_INVALID_LENGTH`;
  }
  return 'ok';
}

const delegateText = fc.oneof(
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }),
  fc.string({
    unit: fc.constantFrom(
      'a',
      'B',
      'ß',
      'ﬃ',
      'İ',
      'ŉ',
      '\u0345',
      '/',
      ':',
      ' ',
      '\u200b',
      '\ufe0f',
      '\ue000',
      '\u3000',
      '\ud83d\ude00',
    ),
    minLength: 1,
    maxLength: 70,
  }),
);
const valueOf = (good: unknown) =>
  fc.oneof(
    fc.constant(good),
    fc.constant(undefined),
    fc.constant(null),
    fc.constant(''),
    fc.jsonValue(),
    fc.string({ maxLength: 5 }),
  );

describe('delegation laws', () => {
  it('oracle: validateDelegationRequest throws the code a reference from the field table gives, and nothing else', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.record(
            {
              tokenId: valueOf('bjbvcjzqbdsj'),
              base64HashOrDelegateSignerId: fc.oneof(valueOf('bot-7'), delegateText),
              unixTimestamp: fc.oneof(valueOf(1_767_225_600), fc.double(), fc.integer({ min: -5, max: 5 })),
              publicKey: fc.oneof(
                valueOf(KEY),
                fc.constant(Buffer.from(subagent.publicKey).toString('base64')),
                fc.constant(KEY + '='),
              ),
              signature: fc.oneof(valueOf(SIG), fc.constant(SIG.slice(1))),
            },
            { requiredKeys: [] },
          ),
          fc.jsonValue(),
        ),
        (body) => {
          let code = 'ok';
          try {
            validateDelegationRequest(body);
          } catch (e) {
            expect(e).toBeInstanceOf(PassportError);
            code = (e as PassportError).code.replace(/^ISAUTHORIZEDSIGNER_/, '');
          }
          expect(code).toBe(referenceCode(body));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('every delegate id the validator accepts is carried by a subagent line, and compareSubagent matches it', () => {
    fc.assert(
      fc.property(delegateText, (delegateId) => {
        let d;
        try {
          d = signDelegation({
            tokenId: 'bjbvcjzqbdsj',
            delegateId,
            unixTimestamp: 1,
            delegatePublicKey: subagent.publicKey,
            ownerSigner: owner,
          });
        } catch {
          return; // refused
        }
        const hola = buildHolaLine({
          senderTokenId: 'bjbvcjzqbdsj',
          timestamp: '2026-01-01T00:00:00.000Z',
          nonceHex: '0123456789ABCDEF0123456789ABCDEF',
          serviceHost,
          signer: subagent,
          subagent: { delegateId },
        });
        const result: DelegationCheckResult = {
          authorized: true,
          tokenId: d.tokenId,
          base64HashOrDelegateSignerId: d.base64HashOrDelegateSignerId,
          checks: { tokenExists: true, tokenActive: true, publicKeyAuthorized: true },
          failureReasons: [],
        };
        expect(
          compareSubagent({ hola, serviceHost, delegation: d }, { verified: true }, result).reasons,
        ).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });

  it('round trip: signDelegation validates to the same fields, the key bytes, and a signature the owner key verifies', () => {
    const verifier = createNobleVerifier();
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z]{12}$/),
        delegateText,
        fc.nat(),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        (tokenId, delegateId, ts, key) => {
          let body;
          try {
            body = signDelegation({
              tokenId,
              delegateId,
              unixTimestamp: ts,
              delegatePublicKey: key,
              ownerSigner: owner,
            });
          } catch (e) {
            expect(e).toBeInstanceOf(PassportError);
            return;
          }
          const v = validateDelegationRequest(body);
          expect([v.tokenId, v.base64HashOrDelegateSignerId, v.unixTimestamp, [...v.publicKeyBytes]]).toEqual(
            [tokenId, delegateId, ts, [...key]],
          );
          expect(verifier.verify(v.signatureBytes, utf8(delegationMessage(v)), owner.publicKey)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
