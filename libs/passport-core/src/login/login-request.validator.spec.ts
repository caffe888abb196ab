import fc from 'fast-check';
import { PassportError } from '../errors/passport.error.js';
import { validateLoginRequest } from './login-request.validator.js';

const SIG = 'A'.repeat(86); // 64 zero bytes in unpadded base64url
const ACCOUNT = 'ab'.repeat(32);
const ok = { accountid: ACCOUNT, timestamp: 1_767_225_600, base64url_signature: SIG };

function codeOf(body: unknown): string {
  try {
    validateLoginRequest(body);
    return 'OK';
  } catch (error) {
    if (!(error instanceof PassportError)) throw error;
    return error.code;
  }
}

describe('login request validation: each 400 code', () => {
  it.each([
    ['deprecated signature', { ...ok, signature: SIG }, 'LOGIN_PAYLOAD_DEPRECATED'],
    ['deprecated account_id (even null)', { ...ok, account_id: null }, 'LOGIN_PAYLOAD_DEPRECATED'],
    ['deprecated token_id', { ...ok, token_id: 'x' }, 'LOGIN_PAYLOAD_DEPRECATED'],
    ['deprecated passport_id', { ...ok, passport_id: '' }, 'LOGIN_PAYLOAD_DEPRECATED'],
    ['two signature fields', { ...ok, passportid_base64url_signature: SIG }, 'LOGIN_PAYLOAD_DEPRECATED'],
    ['both identifiers', { ...ok, passportid: 'chbvcnurbkuw' }, 'LOGIN_IDENTIFIER_AMBIGUOUS'],
    ['no identifier', { timestamp: 1, base64url_signature: SIG }, 'MISSING_LOGIN_IDENTIFIER'],
    ['empty identifiers', { ...ok, accountid: '', passportid: null }, 'MISSING_LOGIN_IDENTIFIER'],
    ['a non-string identifier', { ...ok, accountid: 42 }, 'MISSING_LOGIN_IDENTIFIER'],
    ['both timestamps', { ...ok, timestamp_iso: '2026-01-01T00:00:00.000Z' }, 'LOGIN_TIMESTAMP_AMBIGUOUS'],
    ['no timestamp', { accountid: ACCOUNT, base64url_signature: SIG }, 'INVALID_LOGIN_TIMESTAMP'],
    ['timestamp zero', { ...ok, timestamp: 0 }, 'INVALID_LOGIN_TIMESTAMP'],
    ['negative timestamp', { ...ok, timestamp: -5 }, 'INVALID_LOGIN_TIMESTAMP'],
    ['fractional timestamp', { ...ok, timestamp: 1.5 }, 'INVALID_LOGIN_TIMESTAMP'],
    ['numeric-string timestamp', { ...ok, timestamp: '1767225600' }, 'INVALID_LOGIN_TIMESTAMP'],
    ['unsafe integer timestamp', { ...ok, timestamp: 2 ** 53 }, 'INVALID_LOGIN_TIMESTAMP'],
    ['timestamp past the Date range', { ...ok, timestamp: 8.64e12 + 1 }, 'INVALID_LOGIN_TIMESTAMP'],
    [
      'ISO without milliseconds',
      { accountid: ACCOUNT, timestamp_iso: '2026-01-01T00:00:00Z', base64url_signature: SIG },
      'INVALID_LOGIN_TIMESTAMP',
    ],
    [
      'ISO with an offset',
      { accountid: ACCOUNT, timestamp_iso: '2026-01-01T01:00:00.000+01:00', base64url_signature: SIG },
      'INVALID_LOGIN_TIMESTAMP',
    ],
    [
      'ISO off a whole second',
      { accountid: ACCOUNT, timestamp_iso: '2026-01-01T00:00:00.500Z', base64url_signature: SIG },
      'INVALID_LOGIN_TIMESTAMP',
    ],
    [
      'ISO at the epoch',
      { accountid: ACCOUNT, timestamp_iso: '1970-01-01T00:00:00.000Z', base64url_signature: SIG },
      'INVALID_LOGIN_TIMESTAMP',
    ],
    [
      'ISO as a number',
      { accountid: ACCOUNT, timestamp_iso: 1767225600, base64url_signature: SIG },
      'INVALID_LOGIN_TIMESTAMP',
    ],
    ['no signature', { accountid: ACCOUNT, timestamp: 1 }, 'MISSING_BASE64URL_SIGNATURE'],
    [
      'empty signatures',
      { ...ok, base64url_signature: '', passportid_base64url_signature: null },
      'MISSING_BASE64URL_SIGNATURE',
    ],
  ])('%s → %s', (_name, body, code) => {
    expect(codeOf(body)).toBe(code);
  });
});

describe('login request validation: precedence (docs/protocol.md §3 order)', () => {
  it('deprecated beats everything', () => {
    expect(codeOf({ signature: 'x' })).toBe('LOGIN_PAYLOAD_DEPRECATED');
    expect(
      codeOf({
        accountid: 'a',
        passportid: 'b',
        timestamp: 1,
        timestamp_iso: 'x',
        base64url_signature: 'a',
        passportid_base64url_signature: 'b',
      }),
    ).toBe('LOGIN_PAYLOAD_DEPRECATED');
  });
  it('both identifiers AND both timestamps → LOGIN_IDENTIFIER_AMBIGUOUS', () => {
    expect(
      codeOf({
        accountid: ACCOUNT,
        passportid: 'chbvcnurbkuw',
        timestamp: 1,
        timestamp_iso: '2026-01-01T00:00:00.000Z',
      }),
    ).toBe('LOGIN_IDENTIFIER_AMBIGUOUS');
  });
  it('no identifier beats timestamp and signature faults', () => {
    expect(codeOf({ timestamp: 1, timestamp_iso: 'x' })).toBe('MISSING_LOGIN_IDENTIFIER');
    expect(codeOf({})).toBe('MISSING_LOGIN_IDENTIFIER');
  });
  it('timestamp faults beat a missing signature', () => {
    expect(codeOf({ accountid: ACCOUNT, timestamp: 1, timestamp_iso: 'x' })).toBe(
      'LOGIN_TIMESTAMP_AMBIGUOUS',
    );
    expect(codeOf({ accountid: ACCOUNT, timestamp: 'x' })).toBe('INVALID_LOGIN_TIMESTAMP');
  });
  it.each([null, [], 'text', 42, true])('a non-object body %j names no identifier', (body) => {
    expect(codeOf(body)).toBe('MISSING_LOGIN_IDENTIFIER');
  });
});

describe('login request validation: the normalized request', () => {
  it('from timestamp: the ISO form is derived; the identifier is kept as sent', () => {
    expect(validateLoginRequest({ ...ok, accountid: 'Alice.Near ' })).toMatchObject({
      identifierKind: 'accountid',
      identifier: 'Alice.Near ',
      timestampSeconds: 1_767_225_600,
      timestampIso: '2026-01-01T00:00:00.000Z',
      signatureText: SIG,
    });
  });
  it('from timestamp_iso, with the signature in the other field', () => {
    const request = validateLoginRequest({
      passportid: 'chbvcnurbkuw',
      timestamp_iso: '2026-01-01T00:00:00.000Z',
      base64url_signature: SIG,
    });
    expect(request).toMatchObject({
      identifierKind: 'passportid',
      timestampSeconds: 1_767_225_600,
      timestampIso: '2026-01-01T00:00:00.000Z',
    });
    expect(request.signature).toEqual(new Uint8Array(64));
    expect(
      validateLoginRequest({ passportid: 'chbvcnurbkuw', timestamp: 1, passportid_base64url_signature: SIG })
        .signature,
    ).toHaveLength(64);
  });
  it.each([
    ['padded', `${SIG}==`],
    ['standard base64', `${'A'.repeat(84)}+/`],
    ['63 bytes', 'A'.repeat(84)],
    ['65 bytes', 'A'.repeat(87)],
    ['non-canonical tail bits', `${'A'.repeat(85)}B`],
  ])('a %s signature is kept for a 401, not a 400', (_name, text) => {
    expect(validateLoginRequest({ ...ok, base64url_signature: text }).signature).toBeNull();
  });
  it('a non-string signature is a present but unusable one', () => {
    expect(validateLoginRequest({ ...ok, base64url_signature: 12 })).toMatchObject({
      signature: null,
      signatureText: '',
    });
  });
});

describe('login request validation: properties', () => {
  const field = fc.oneof(
    fc.constant(undefined),
    fc.constant(null),
    fc.constant(''),
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.jsonValue(),
  );
  const loginish = fc.record(
    {
      accountid: field,
      passportid: field,
      timestamp: fc.oneof(field, fc.integer({ min: -10, max: 2 ** 53 + 10 })),
      timestamp_iso: fc.oneof(
        field,
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      ),
      base64url_signature: field,
      passportid_base64url_signature: field,
      signature: field,
    },
    { requiredKeys: [] },
  );
  it('throws nothing but a 400 PassportError, on any JSON', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), loginish), (body) => {
        try {
          const request = validateLoginRequest(body);
          expect(typeof request.identifier).toBe('string');
          expect(new Date(request.timestampSeconds * 1000).toISOString()).toBe(request.timestampIso);
        } catch (error) {
          expect(error).toBeInstanceOf(PassportError);
        }
      }),
      { numRuns: 2000 },
    );
  });
  it('accepts every whole-second instant either way, with the same result', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8.64e12 }), (seconds) => {
        const iso = new Date(seconds * 1000).toISOString();
        const a = validateLoginRequest({
          passportid: 'chbvcnurbkuw',
          timestamp: seconds,
          base64url_signature: SIG,
        });
        const b = validateLoginRequest({
          passportid: 'chbvcnurbkuw',
          timestamp_iso: iso,
          base64url_signature: SIG,
        });
        expect(b).toEqual(a);
      }),
    );
  });
});

// From a mutation probe: `value < MAX_DATE_SECONDS` for `<=` passed every test, the property above
// reaching the last representable second only by chance.
describe('login request validation: the edges of the timestamp range', () => {
  it('the last second Date can represent (8.64e12) is read; the next is INVALID_LOGIN_TIMESTAMP', () => {
    expect(validateLoginRequest({ ...ok, timestamp: 8.64e12 })).toMatchObject({
      timestampSeconds: 8.64e12,
      timestampIso: '+275760-09-13T00:00:00.000Z',
    });
    expect(codeOf({ ...ok, timestamp: 8.64e12 + 1 })).toBe('INVALID_LOGIN_TIMESTAMP');
  });
  it('the first second after the epoch is read', () => {
    expect(validateLoginRequest({ ...ok, timestamp: 1 })).toMatchObject({
      timestampSeconds: 1,
      timestampIso: '1970-01-01T00:00:01.000Z',
    });
  });
});
