/**
 * @module hola/hola.parser
 * Parses a HOLA line (resolutions §2), standard or subagent form, and reports the first problem in
 * the documented order: `payload_is_json_object`, `invalid_format`, `unix_millis_timestamp`,
 * `placeholder_signature`, `signature_not_base32`, `invalid_format` (timestamp), `checksum_invalid`.
 * It never throws and does bounded work on any input; signature, freshness, replay and token checks
 * happen later (verify use case) and are reported on the 200 body, never here.
 */
import { decodeBase32 } from '../codecs/base32.codec.js';
import { codeUnitSum, holaChecksumLetter } from './hola.checksum.js';
import { parseHolaTimestamp } from './hola-timestamp.js';
import { isPaddedBase32, isUnixMillis, isUpperHex, isUpperTokenId } from './hola-field-checks.js';
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

const MUNDO_SUM = codeUnitSum('MUNDO');
const PLACEHOLDER = /[<>[\]{}()\s]|\.\.\.|SIGNATURE|PLACEHOLDER/;

let lastHost = '';
let lastUpperHost = '';
/** SERVICE_HOST uppercased (one service checks lines against one host: remember the last). */
function upperHost(serviceHost: string): string {
  if (serviceHost !== lastHost) {
    lastUpperHost = serviceHost.toUpperCase();
    lastHost = serviceHost;
  }
  return lastUpperHost;
}

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
  // Cheap exit for the common case (a line starts with "H"): JSON text starts with "{" after blanks.
  const first = text.charCodeAt(0);
  if (first !== 0x7b && !(first <= 0x20 || first === 0xa0 || first === 0xfeff || first >= 0x1680))
    return false;
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
  const count = fields.length;
  const checksum = fields[count - 1];
  const signatureText = fields[count - 2];
  const host = fields[count - 3];
  const nonceHex = fields[count - 4];
  const recipient = fields[1] === '' ? 'MUNDO' : fields[1];
  if (recipient !== 'MUNDO' && !isUpperTokenId(recipient)) {
    return fail('invalid_format', 'The recipient must be MUNDO, empty, or a 12-letter token id.');
  }
  const expectedHost = upperHost(opts.serviceHost);
  if (host !== expectedHost) {
    return fail('invalid_format', `The host marker must be ${expectedHost}.`, {
      expected: expectedHost,
      received: host,
    });
  }
  if (!isUpperHex(nonceHex))
    return fail('invalid_format', 'The nonce must be non-empty hexadecimal (from GET /api/holanonce16ts).');

  let senderTokenId: string;
  let timestamp: string;
  let delegateId: string | undefined;
  let subagentPublicKey: Uint8Array | undefined;
  if (form === 'standard') {
    senderTokenId = fields[2];
    timestamp = fields[3];
    if (!isUpperTokenId(senderTokenId))
      return fail('invalid_format', 'The sender token id must be 12 letters.');
  } else {
    delegateId = fields[2];
    senderTokenId = fields[3];
    const publicKeyText = fields[4];
    timestamp = fields[5];
    if (delegateId.length < 1 || delegateId.length > HOLA_DELEGATE_ID_MAX_LENGTH) {
      return fail(
        'invalid_format',
        `The delegate id must be 1 to ${HOLA_DELEGATE_ID_MAX_LENGTH} characters.`,
      );
    }
    if (!isUpperTokenId(senderTokenId))
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
  if (isUnixMillis(timestamp))
    return fail('unix_millis_timestamp', 'The timestamp is Unix milliseconds; HOLA uses ISO 8601.');

  // 4. placeholder_signature (a plain base32 run can only hold the two words: skip the full scan)
  const plainBase32 = isPaddedBase32(signatureText);
  if (
    plainBase32
      ? signatureText.includes('SIGNATURE') || signatureText.includes('PLACEHOLDER')
      : PLACEHOLDER.test(signatureText)
  )
    return fail('placeholder_signature', 'The signature slot holds a placeholder.');

  // 5. signature_not_base32
  const signatureBody = signatureText.endsWith('=') ? signatureText.replace(/=+$/, '') : signatureText;
  if (!plainBase32 || signatureBody.length !== HOLA_SIGNATURE_BASE32_LENGTH) {
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
  // Summed straight off the line (prefix, signature and "/" are contiguous there), plus the MUNDO an
  // empty recipient stands for: the same letter as holaChecksum(signedPrefix, signatureText).
  const prefixEnd = line.length - checksum.length - signatureText.length - 1;
  const emptyRecipient = fields[1] === '';
  const expected = holaChecksumLetter(
    codeUnitSum(line, 0, line.length - checksum.length) + (emptyRecipient ? MUNDO_SUM : 0),
  );
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

  const signedPrefix = emptyRecipient ? `HOLA/MUNDO${line.slice(5, prefixEnd)}` : line.slice(0, prefixEnd);
  // One object shape per form, built as a literal (a spread here costs a slow property copy).
  const parsed: ParsedHola = {
    form,
    recipient,
    senderTokenId: senderTokenId.toLowerCase(),
    timestamp,
    timestampMs,
    nonceHex,
    host,
    signature,
    signatureText,
    checksum,
    signedPrefix,
  };
  if (form === 'subagent') {
    (parsed as { delegateId?: string }).delegateId = delegateId;
    (parsed as { subagentPublicKey?: Uint8Array }).subagentPublicKey = subagentPublicKey;
  }
  return { ok: true, line: parsed };
}
