/**
 * @module hola/hola.parser
 * Parses a HOLA line (resolutions §2), standard or subagent form, and reports the first problem in
 * the documented order: `payload_is_json_object`, `invalid_format`, `unix_millis_timestamp`,
 * `placeholder_signature`, `signature_not_base32`, `invalid_format` (timestamp), `checksum_invalid`.
 * It never throws and does bounded work on any input; signature, freshness, replay and token checks
 * happen later (verify use case) and are reported on the 200 body, never here.
 */
import { decodeBase32 } from '../codecs/base32.codec.js';
import { holaChecksum } from './hola.checksum.js';
import { parseHolaTimestamp } from './hola-timestamp.js';
import {
  HOLA_VALIDATION_STAGE,
  type HolaParseResult,
  type HolaReasonCode,
  type HolaValidationFailure,
  type ParsedHola,
} from './hola.types.js';

export const HOLA_MAX_LENGTH = 512;
export const HOLA_SIGNATURE_BASE32_LENGTH = 103; // 64 bytes
export const HOLA_PUBLIC_KEY_BASE32_LENGTH = 52; // 32 bytes
export const HOLA_DELEGATE_ID_MAX_LENGTH = 128;

const UPPER_TOKEN_ID = /^[A-Z]{12}$/;
const NONCE = /^[0-9A-F]+$/;
const UNIX_MILLIS = /^\d{10,}$/;
const PLACEHOLDER = /[<>[\]{}()\s]|\.\.\.|SIGNATURE|PLACEHOLDER/;
const BASE32_BODY = /^[A-Z2-7]*$/;

const HINTS: Record<HolaReasonCode, string> = {
  payload_is_json_object: 'Send the HOLA line itself as one string, not a JSON object or array.',
  invalid_format:
    'Build HOLA/<recipient>/<tokenId>/<timestamp>/<nonceHex>/<HOST>/<base32 signature>/<checksum> with the timestamp and nonce of GET /api/holanonce16ts.',
  unix_millis_timestamp: 'Use the ISO 8601 timestamp from GET /api/holanonce16ts, not Unix milliseconds.',
  placeholder_signature:
    'Replace the placeholder with the real base32 Ed25519 signature of the signed prefix.',
  signature_not_base32:
    'Encode the 64-byte Ed25519 signature as RFC 4648 base32 (A-Z2-7, 103 characters, no padding).',
  checksum_invalid:
    'Recompute the checksum: sum the UTF-16 code units of the prefix, the signature and "/", mod 23, into ABCDEFGHJKMNPQRSTUVWXYZ.',
};

function fail(
  reasonCode: HolaReasonCode,
  message: string,
  extra?: { expected: string; received: string },
): { ok: false; failure: HolaValidationFailure } {
  return {
    ok: false,
    failure: { reasonCode, stage: HOLA_VALIDATION_STAGE, hint: HINTS[reasonCode], message, ...extra },
  };
}

/** True when `text` is the JSON text of an object (a nested payload sent where a line belongs). */
function isJsonObjectText(text: string): boolean {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') || !trimmed.endsWith('}')) return false;
  try {
    const value: unknown = JSON.parse(trimmed);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

export function parseHola(input: unknown, opts: { serviceHost: string }): HolaParseResult {
  // 1. payload_is_json_object
  if (typeof input === 'object' && input !== null) {
    return fail('payload_is_json_object', 'hola is a JSON object or array; it must be a string.');
  }
  if (typeof input === 'string' && isJsonObjectText(input)) {
    return fail('payload_is_json_object', 'hola is a string holding a JSON object; send the line itself.');
  }

  // 2. invalid_format: shape, host marker, token ids, nonce, recipient
  if (typeof input !== 'string') return fail('invalid_format', 'hola must be a string.');
  if (input.length > HOLA_MAX_LENGTH)
    return fail('invalid_format', `hola is longer than ${HOLA_MAX_LENGTH} characters.`);
  const line = input.toUpperCase();
  if (!line.startsWith('HOLA/')) return fail('invalid_format', 'hola must start with "HOLA/".');
  const fields = line.split('/');
  if (fields.length !== 8 && fields.length !== 10) {
    return fail(
      'invalid_format',
      `hola has ${fields.length} slash-separated fields; expected 8 (standard) or 10 (subagent).`,
    );
  }
  const form = fields.length === 8 ? 'standard' : 'subagent';
  // From the right: checksum, signature, host marker, nonce; the middle is 2 or 4 fields.
  const [checksum, signatureText, host, nonceHex] = [
    fields.at(-1)!,
    fields.at(-2)!,
    fields.at(-3)!,
    fields.at(-4)!,
  ];
  const middle = fields.slice(2, -4);
  const recipient = fields[1] === '' ? 'MUNDO' : fields[1];
  if (recipient !== 'MUNDO' && !UPPER_TOKEN_ID.test(recipient)) {
    return fail('invalid_format', 'The recipient must be MUNDO, empty, or a 12-letter token id.');
  }
  const expectedHost = opts.serviceHost.toUpperCase();
  if (host !== expectedHost) {
    return fail('invalid_format', `The host marker must be ${expectedHost}.`, {
      expected: expectedHost,
      received: host,
    });
  }
  if (!NONCE.test(nonceHex))
    return fail('invalid_format', 'The nonce must be non-empty hexadecimal (from GET /api/holanonce16ts).');

  let senderTokenId: string;
  let timestamp: string;
  let delegateId: string | undefined;
  let subagentPublicKey: Uint8Array | undefined;
  if (form === 'standard') {
    [senderTokenId, timestamp] = middle;
    if (!UPPER_TOKEN_ID.test(senderTokenId))
      return fail('invalid_format', 'The sender token id must be 12 letters.');
  } else {
    let publicKeyText: string;
    [delegateId, senderTokenId, publicKeyText, timestamp] = middle;
    if (delegateId.length < 1 || delegateId.length > HOLA_DELEGATE_ID_MAX_LENGTH) {
      return fail(
        'invalid_format',
        `The delegate id must be 1 to ${HOLA_DELEGATE_ID_MAX_LENGTH} characters.`,
      );
    }
    if (!UPPER_TOKEN_ID.test(senderTokenId))
      return fail('invalid_format', 'The issuer token id must be 12 letters.');
    const key = publicKeyText.length === HOLA_PUBLIC_KEY_BASE32_LENGTH ? decodeBase32(publicKeyText) : null;
    if (!key || key.length !== 32) {
      return fail(
        'invalid_format',
        'The subagent public key must be the base32 of 32 bytes (52 characters).',
      );
    }
    subagentPublicKey = key;
  }

  // 3. unix_millis_timestamp
  if (UNIX_MILLIS.test(timestamp))
    return fail('unix_millis_timestamp', 'The timestamp is Unix milliseconds; HOLA uses ISO 8601.');

  // 4. placeholder_signature
  if (PLACEHOLDER.test(signatureText))
    return fail('placeholder_signature', 'The signature slot holds a placeholder.');

  // 5. signature_not_base32
  const signatureBody = signatureText.endsWith('=') ? signatureText.replace(/=+$/, '') : signatureText;
  if (!BASE32_BODY.test(signatureBody) || signatureBody.length !== HOLA_SIGNATURE_BASE32_LENGTH) {
    return fail(
      'signature_not_base32',
      `The signature must be ${HOLA_SIGNATURE_BASE32_LENGTH} base32 characters (A-Z2-7); received ${signatureBody.length}.`,
    );
  }
  const signature = decodeBase32(signatureBody);
  if (!signature || signature.length !== 64) {
    return fail(
      'signature_not_base32',
      'The signature is not the canonical base32 of 64 bytes (non-zero padding bits).',
    );
  }

  // 6. invalid_format: the timestamp grammar
  const timestampMs = parseHolaTimestamp(timestamp);
  if (timestampMs === null) {
    return fail('invalid_format', 'The timestamp must be ISO 8601: YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM).');
  }

  // 7. checksum_invalid
  // The line up to and including "/<HOST>/", with an empty recipient written as MUNDO.
  const prefixEnd = line.length - checksum.length - signatureText.length - 1;
  const signedPrefix = fields[1] === '' ? `HOLA/MUNDO${line.slice(5, prefixEnd)}` : line.slice(0, prefixEnd);
  const expected = holaChecksum(signedPrefix, signatureText);
  if (checksum !== expected) {
    return fail(
      'checksum_invalid',
      `HOLA checksum mismatch: expected "${expected}", received "${checksum}".`,
      {
        expected,
        received: checksum,
      },
    );
  }

  const parsed: ParsedHola = {
    form,
    recipient,
    senderTokenId: senderTokenId.toLowerCase(),
    ...(form === 'subagent' ? { delegateId, subagentPublicKey } : {}),
    timestamp,
    timestampMs,
    nonceHex,
    host,
    signature,
    signatureText,
    checksum,
    signedPrefix,
  };
  return { ok: true, line: parsed };
}
