/**
 * Property law of POST /api/login validation: the code equals a reference written from resolutions.md §3
 * (the order of the 400 rules) and the validator's stated decisions (a field is sent when neither absent,
 * null nor ""; deprecated keys count when present), on random bodies.
 */
import fc from 'fast-check';
import { encodeBase64Url } from '../codecs/base64url.codec.js';
import { PassportError } from '../errors/passport.error.js';
import { validateLoginRequest } from './login-request.validator.js';

function referenceCode(body: unknown): string {
  const f =
    body !== null && typeof body === 'object' && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : {};
  const has = (k: string) => Object.prototype.hasOwnProperty.call(f, k);
  const sent = (k: string) => has(k) && f[k] !== undefined && f[k] !== null && f[k] !== '';
  if (['signature', 'account_id', 'token_id', 'passport_id'].some((k) => has(k) && f[k] !== undefined))
    return 'LOGIN_PAYLOAD_DEPRECATED';
  if (sent('base64url_signature') && sent('passportid_base64url_signature'))
    return 'LOGIN_PAYLOAD_DEPRECATED';
  if (sent('accountid') && sent('passportid')) return 'LOGIN_IDENTIFIER_AMBIGUOUS';
  const identifier = sent('accountid') ? f.accountid : f.passportid;
  if (typeof identifier !== 'string' || identifier === '') return 'MISSING_LOGIN_IDENTIFIER';
  if (sent('timestamp') && sent('timestamp_iso')) return 'LOGIN_TIMESTAMP_AMBIGUOUS';
  if (sent('timestamp')) {
    const t = f.timestamp;
    if (!(typeof t === 'number' && Number.isSafeInteger(t) && t > 0 && t <= 8.64e12))
      return 'INVALID_LOGIN_TIMESTAMP';
  } else if (sent('timestamp_iso')) {
    const iso = f.timestamp_iso;
    const ms = typeof iso === 'string' ? Date.parse(iso) : NaN;
    if (!(ms > 0 && ms % 1000 === 0 && new Date(ms).toISOString() === iso)) return 'INVALID_LOGIN_TIMESTAMP';
  } else return 'INVALID_LOGIN_TIMESTAMP';
  if (!sent('base64url_signature') && !sent('passportid_base64url_signature'))
    return 'MISSING_BASE64URL_SIGNATURE';
  return 'ok';
}

const SIG = encodeBase64Url(new Uint8Array(64).fill(3));
const field = <T>(good: T) =>
  fc.oneof(
    fc.constant(good),
    fc.constant(null),
    fc.constant(''),
    fc.constant(0),
    fc.constant(false),
    fc.string({ maxLength: 4 }),
  );
const body = fc.record(
  {
    accountid: field('ab'.repeat(32)),
    passportid: field('chbvcnurbkuw'),
    timestamp: fc.oneof(
      field(1_767_225_600),
      fc.double(),
      fc.integer(),
      fc.constant(8.64e12 + 1),
      fc.constant('1767225600'),
    ),
    timestamp_iso: fc.oneof(
      field('2026-01-01T00:00:00.000Z'),
      fc.constantFrom(
        '2026-01-01T00:00:00Z',
        '2026-01-01T00:00:00.001Z',
        '1970-01-01T00:00:00.000Z',
        '+275760-09-13T00:00:00.000Z',
        '2026-01-01',
      ),
    ),
    base64url_signature: field(SIG),
    passportid_base64url_signature: field(SIG),
    signature: field(SIG),
    token_id: field('x'),
  },
  { requiredKeys: [] },
);

describe('login request laws', () => {
  it('oracle: the 400 code (or acceptance) equals a reference written from resolutions.md §3', () => {
    fc.assert(
      fc.property(fc.oneof(body, body, body, fc.jsonValue()), (b) => {
        let code = 'ok';
        try {
          validateLoginRequest(b);
        } catch (e) {
          expect(e).toBeInstanceOf(PassportError);
          code = (e as PassportError).code;
        }
        expect(code).toBe(referenceCode(b));
      }),
      { numRuns: 3000 },
    );
  });
});
