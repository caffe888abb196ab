/**
 * @module login/login-request.validator
 * `POST /api/login` body validation (HTTP 400), one code per rule, checked in the order of
 * docs/protocol.md §3 so that a body breaking several rules always gets the same answer.
 *
 * Decisions (written into the docs):
 * - A body that is not a JSON object is read as `{}` (it names no identifier → `MISSING_LOGIN_IDENTIFIER`).
 * - A field "is sent" when its value is neither absent, `null` nor `""`. Deprecated keys count when
 *   present with any value but absent.
 * - The chosen identifier must be a string, else `MISSING_LOGIN_IDENTIFIER`.
 * - `timestamp` must be a JSON number that is a positive safe integer (no numeric strings) and a
 *   representable date; `timestamp_iso` must be exactly the challenge's form: canonical
 *   `Date#toISOString()` output at a whole second (`….000Z`), after 1970-01-01T00:00:00Z.
 * - The signature's *encoding* is not a 400: a value that is not strict unpadded base64url of 64
 *   bytes leaves `signature: null`, and the verifier answers 401 `LOGIN_BASE64URL_SIGNATURE_INVALID`
 *   as for any signature that does not verify (one rule for "this signature is no good").
 */
import { decodeBase64Url } from '../codecs/base64url.codec.js';
import { PassportError } from '../errors/passport.error.js';

export type LoginIdentifierKind = 'accountid' | 'passportid';

export interface LoginRequest {
  readonly identifierKind: LoginIdentifierKind;
  /** Exactly as sent: it is part of the signed message. */
  readonly identifier: string;
  /** The challenge instant in Unix seconds. */
  readonly timestampSeconds: number;
  /** The canonical ISO form of the same instant: the signed message's suffix. */
  readonly timestampIso: string;
  /** The 64 signature bytes, or null when the sent value is not strict base64url of 64 bytes. */
  readonly signature: Uint8Array | null;
  /** The signature field's value as sent (for logs; never trusted). */
  readonly signatureText: string;
}

const DEPRECATED_KEYS = ['signature', 'account_id', 'token_id', 'passport_id'] as const;
/** The latest instant `Date` can represent, in seconds. */
const MAX_DATE_SECONDS = 8.64e12;

const isSent = (value: unknown): boolean => value !== undefined && value !== null && value !== '';

function reject(
  code:
    | 'LOGIN_PAYLOAD_DEPRECATED'
    | 'LOGIN_IDENTIFIER_AMBIGUOUS'
    | 'MISSING_LOGIN_IDENTIFIER'
    | 'LOGIN_TIMESTAMP_AMBIGUOUS'
    | 'INVALID_LOGIN_TIMESTAMP'
    | 'MISSING_BASE64URL_SIGNATURE',
  details: Record<string, unknown>,
): never {
  throw new PassportError(code, details);
}

export function validateLoginRequest(body: unknown): LoginRequest {
  const fields: Record<string, unknown> =
    body !== null && typeof body === 'object' && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : {};
  const own = (key: string): unknown =>
    Object.prototype.hasOwnProperty.call(fields, key) ? fields[key] : undefined;

  // 1. Deprecated payloads.
  const deprecated = DEPRECATED_KEYS.filter((key) => own(key) !== undefined);
  if (deprecated.length > 0) reject('LOGIN_PAYLOAD_DEPRECATED', { deprecatedKeys: deprecated });
  const accountSignature = own('base64url_signature');
  const passportSignature = own('passportid_base64url_signature');
  if (isSent(accountSignature) && isSent(passportSignature)) {
    reject('LOGIN_PAYLOAD_DEPRECATED', { reason: 'two_signature_fields' });
  }

  // 2-3. Exactly one identifier.
  const accountId = own('accountid');
  const passportId = own('passportid');
  if (isSent(accountId) && isSent(passportId))
    reject('LOGIN_IDENTIFIER_AMBIGUOUS', { fields: ['accountid', 'passportid'] });
  const identifierKind: LoginIdentifierKind = isSent(accountId) ? 'accountid' : 'passportid';
  const identifier = identifierKind === 'accountid' ? accountId : passportId;
  if (typeof identifier !== 'string' || identifier === '') {
    reject('MISSING_LOGIN_IDENTIFIER', { fields: ['accountid', 'passportid'] });
  }

  // 4-5. Exactly one well-formed timestamp.
  const timestamp = own('timestamp');
  const timestampIsoSent = own('timestamp_iso');
  if (isSent(timestamp) && isSent(timestampIsoSent))
    reject('LOGIN_TIMESTAMP_AMBIGUOUS', { fields: ['timestamp', 'timestamp_iso'] });
  const timestampSeconds = isSent(timestamp)
    ? secondsFromTimestamp(timestamp)
    : isSent(timestampIsoSent)
      ? secondsFromIso(timestampIsoSent)
      : null;
  if (timestampSeconds === null) {
    reject('INVALID_LOGIN_TIMESTAMP', { field: isSent(timestampIsoSent) ? 'timestamp_iso' : 'timestamp' });
  }

  // 6. A signature in either field.
  const signatureValue = isSent(accountSignature) ? accountSignature : passportSignature;
  if (!isSent(signatureValue))
    reject('MISSING_BASE64URL_SIGNATURE', {
      fields: ['base64url_signature', 'passportid_base64url_signature'],
    });
  const signatureText = typeof signatureValue === 'string' ? signatureValue : '';
  const decoded = signatureText === '' ? null : decodeBase64Url(signatureText);

  return {
    identifierKind,
    identifier,
    timestampSeconds,
    timestampIso: new Date(timestampSeconds * 1000).toISOString(),
    signature: decoded && decoded.length === 64 ? decoded : null,
    signatureText,
  };
}

function secondsFromTimestamp(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 && value <= MAX_DATE_SECONDS
    ? value
    : null;
}

/**
 * A challenge's `timestamp_iso` as the challenge endpoint writes it (canonical `toISOString()` at a whole
 * second). A client signs nothing else: the text is signed after the identifier, and a server that sent
 * other text could make the owner key sign another message (`<tokenId>:<delegate>:<unix>:<key>` is a
 * delegation, protocol §6).
 */
export function isChallengeTimestampIso(value: unknown): value is string {
  return secondsFromIso(value) !== null;
}

function secondsFromIso(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms) || ms <= 0 || ms % 1000 !== 0) return null;
  // Canonical means: exactly what the challenge endpoint printed for this instant.
  return new Date(ms).toISOString() === value ? ms / 1000 : null;
}
