import { sha256 } from '@noble/hashes/sha2.js';
import vectorFile from '../../test-vectors/delegation.json' with { type: 'json' };
import { MemoryChainReader } from '../memory/memory-chain.reader.js';
import { decodeHex } from '../codecs/hex.codec.js';
import { utf8 } from '../codecs/utf8.codec.js';
import { createNobleSigner } from '../crypto/noble.signer.js';
import { createNobleVerifier } from '../crypto/noble.verifier.js';
import { describeError } from '../errors/error-catalogue.js';
import { PassportError } from '../errors/passport.error.js';
import { type SignatureVerifier } from '../ports/signature-verifier.port.js';
import {
  checkDelegation,
  delegationMessage,
  signDelegation,
  validateDelegationRequest,
} from './delegation.js';

const sha256Seed = (label: string) => sha256(utf8(label));
const TOKEN = 'bjbvcjzqbdsj';

function chainFor(v: (typeof vectorFile.checks)[number]['chain']) {
  return new MemoryChainReader({
    contractId: 'passport.test',
    passports: [
      {
        tokenId: TOKEN,
        ownerId: v.ownerId,
        contractId: 'passport.test',
        metadata: { token_id: TOKEN, not_after: v.notAfter ?? '' },
        revoked: v.revoked ?? false,
      },
    ],
    accounts: Object.fromEntries(
      Object.entries(vectorFile.namedAccounts).map(([id, keys]) => [id, keys.map((k) => decodeHex(k)!)]),
    ),
    chainTime: v.chainTimeMs,
  });
}

function caught(fn: () => unknown): PassportError {
  try {
    fn();
  } catch (error) {
    if (error instanceof PassportError) return error;
    throw error;
  }
  throw new Error('expected a PassportError');
}

describe('isauthorizedsigner validation (test-vectors/delegation.json)', () => {
  it.each(vectorFile.validation.map((v) => [v.name, v]))('%s', (_name, v) => {
    const error = caught(() => validateDelegationRequest(v.body));
    expect(error.code).toBe(v.code);
    expect(describeError(error.code)?.area).toBe('hola');
  });

  it('produces every field × problem code the vectors name, and only catalogue codes', () => {
    const codes = new Set(vectorFile.validation.map((v) => v.code));
    for (const field of ['PUBLICKEY', 'SIGNATURE']) {
      for (const problem of ['MISSING', 'INVALID', 'DECODE_FAILED', 'INVALID_LENGTH'])
        expect(codes).toContain(`ISAUTHORIZEDSIGNER_${field}_${problem}`);
    }
    expect(codes.size).toBe(16); // BODY 1 + TOKENID 2 + DELEGATE ID 3 + UNIXTIMESTAMP 2 + PUBLICKEY 4 + SIGNATURE 4
  });

  it('names the JSON field in details', () => {
    expect(caught(() => validateDelegationRequest({ tokenId: TOKEN })).details).toEqual({
      field: 'base64HashOrDelegateSignerId',
      problem: 'MISSING',
    });
  });

  // Found by a probe: UTF-8 encodes every lone surrogate as U+FFFD, so one signature covered several ids.
  it.each(['\ud800', '\udfff', 'bot-\ud83d', '\ude00-bot'])(
    'refuses a delegate id that is not well-formed UTF-16 (%j)',
    (id) => {
      const body = { ...vectorFile.checks[1].body, base64HashOrDelegateSignerId: id };
      expect(caught(() => validateDelegationRequest(body)).code).toBe(
        'ISAUTHORIZEDSIGNER_BASE64HASHORDELEGATESIGNERID_INVALID',
      );
    },
  );

  // Found by a probe: ids no HOLA line may carry were authorized (controls, bidi overrides, and ids of
  // 128 characters that uppercase to more: "ß" is "SS").
  it.each(['\u0000bot', 'bot\u001b[2K', '\u202eevil', 'a\u200bb', 'x\u0085'])(
    'refuses a delegate id with a control or format character (%j)',
    (id) => {
      const body = { ...vectorFile.checks[1].body, base64HashOrDelegateSignerId: id };
      expect(caught(() => validateDelegationRequest(body)).code).toBe(
        'ISAUTHORIZEDSIGNER_BASE64HASHORDELEGATESIGNERID_INVALID',
      );
    },
  );

  // Found by a probe: "worker/1" (a line's separator) and blank ids were authorized, though no line can
  // carry them (the parser reads 11 fields) or a relying party would show nothing.
  it.each([
    'worker/1',
    ' ',
    '\u00a0',
    '\u3000',
    '\u3164',
    '\u2800 ',
    'bot\u{e0139}',
    '\u0300',
    '\ue000',
    '\uffff',
  ])('refuses a delegate id no line can carry (%j)', (id) => {
    const body = { ...vectorFile.checks[1].body, base64HashOrDelegateSignerId: id };
    expect(caught(() => validateDelegationRequest(body)).code).toBe(
      'ISAUTHORIZEDSIGNER_BASE64HASHORDELEGATESIGNERID_INVALID',
    );
  });

  it('counts the length as a line carries the id (uppercased): 128 "ß" are 256 characters there', () => {
    const body = (id: string) => ({ ...vectorFile.checks[1].body, base64HashOrDelegateSignerId: id });
    expect(caught(() => validateDelegationRequest(body('ß'.repeat(65)))).code).toBe(
      'ISAUTHORIZEDSIGNER_BASE64HASHORDELEGATESIGNERID_INVALID_LENGTH',
    );
    expect(validateDelegationRequest(body('ß'.repeat(64))).base64HashOrDelegateSignerId).toBe('ß'.repeat(64));
  });

  it('accepts a delegate id with a character outside the BMP (a whole surrogate pair)', () => {
    const body = { ...vectorFile.checks[1].body, base64HashOrDelegateSignerId: 'bot-\ud83d\ude00' };
    expect(validateDelegationRequest(body).base64HashOrDelegateSignerId).toBe('bot-😀');
  });

  it('accepts a delegate id of 128 characters and keeps the key text as sent', () => {
    const body = { ...vectorFile.checks[1].body, base64HashOrDelegateSignerId: 'x'.repeat(128) };
    const request = validateDelegationRequest(body);
    expect(request.publicKey).toBe(vectorFile.checks[1].body.publicKey);
    expect(request.publicKeyBytes).toEqual(decodeHex(vectorFile.delegatePublicKeyHex));
  });
});

describe('checkDelegation (test-vectors/delegation.json)', () => {
  const verifier = createNobleVerifier();

  it.each(vectorFile.checks.map((v) => [v.name, v]))('%s', async (_name, v) => {
    const request = validateDelegationRequest(v.body);
    // Where the owner's signature holds, the text checked is exactly the text the vector signed.
    if (v.expected.checks.publicKeyAuthorized) expect(delegationMessage(request)).toBe(v.message);
    else if (v.name.includes('after signing') && !v.name.includes('transferred'))
      expect(delegationMessage(request)).not.toBe(v.message);
    const result = await checkDelegation({ chain: chainFor(v.chain), verifier }, request);
    expect(result).toEqual({
      authorized: v.expected.authorized,
      tokenId: TOKEN,
      base64HashOrDelegateSignerId: request.base64HashOrDelegateSignerId,
      checks: v.expected.checks,
      failureReasons: v.expected.failureReasons,
    });
  });

  it.each<[string, unknown]>([
    ['a string', 'yes'],
    ['a number', 1],
  ])(
    'a verifier port answering %s authorizes nothing (only true is a valid signature)',
    async (_what, answer) => {
      const v = vectorFile.checks[0];
      expect(v.expected.authorized).toBe(true);
      const broken = { verify: () => answer } as unknown as SignatureVerifier;
      const result = await checkDelegation(
        { chain: chainFor(v.chain), verifier: broken },
        validateDelegationRequest(v.body),
      );
      expect(result).toMatchObject({ authorized: false, checks: { publicKeyAuthorized: false } });
    },
  );

  it('writes the message exactly as the vectors sign it', () => {
    const untampered = vectorFile.checks[0];
    expect(delegationMessage(validateDelegationRequest(untampered.body))).toBe(untampered.message);
    expect(untampered.message).toBe(`${TOKEN}:research-bot-1:1767225600:${untampered.body.publicKey}`);
  });

  it('answers 404 TOKEN_NOT_FOUND for a passport the chain does not hold', async () => {
    const chain = new MemoryChainReader({ contractId: 'passport.test' });
    await expect(
      checkDelegation({ chain, verifier }, validateDelegationRequest(vectorFile.checks[0].body)),
    ).rejects.toMatchObject({
      code: 'TOKEN_NOT_FOUND',
      details: { tokenId: TOKEN },
    });
  });
});

describe('signDelegation', () => {
  it('reproduces the vector signature (deterministic Ed25519) and passes validation', async () => {
    const owner = createNobleSigner(sha256Seed(vectorFile.seeds.owner));
    expect(owner.publicKey).toEqual(decodeHex(vectorFile.ownerPublicKeyHex));
    const body = signDelegation({
      tokenId: TOKEN,
      delegateId: 'research-bot-1',
      unixTimestamp: 1_767_225_600,
      delegatePublicKey: decodeHex(vectorFile.delegatePublicKeyHex)!,
      ownerSigner: owner,
    });
    expect(body).toEqual(vectorFile.checks[0].body);
  });

  it('refuses to sign what the server would refuse', () => {
    const owner = createNobleSigner(new Uint8Array(32));
    const base = {
      tokenId: TOKEN,
      delegateId: 'd',
      unixTimestamp: 1,
      delegatePublicKey: new Uint8Array(32),
      ownerSigner: owner,
    };
    expect(() => signDelegation({ ...base, delegatePublicKey: new Uint8Array(31) })).toThrow(RangeError);
    expect(caught(() => signDelegation({ ...base, delegateId: '' })).code).toBe(
      'ISAUTHORIZEDSIGNER_BASE64HASHORDELEGATESIGNERID_MISSING',
    );
    expect(caught(() => signDelegation({ ...base, unixTimestamp: -5 })).code).toBe(
      'ISAUTHORIZEDSIGNER_UNIXTIMESTAMP_INVALID',
    );
  });
});
