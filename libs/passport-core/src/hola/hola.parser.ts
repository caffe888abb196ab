/**
 * @module hola/hola.parser
 * Parses a HOLA line (docs/protocol.md §2), standard or subagent form, and reports the first problem in
 * the documented order: `payload_is_json_object`, `invalid_format`, `unix_millis_timestamp`,
 * `placeholder_signature`, `signature_not_base32`, `invalid_format` (timestamp), `checksum_invalid`.
 * It never throws and does bounded work on any input; signature, freshness, replay and token checks
 * happen later (verify use case) and are reported on the 200 body, never here.
 */
import { decodeBase32 } from '../codecs/base32.codec.js';
import { hasUnprintable, printableText } from '../codecs/printable-text.js';
import { codeUnitSum, holaChecksumLetter } from './hola.checksum.js';
import { parseHolaTimestamp } from './hola-timestamp.parser.js';
import { isPaddedBase32, isUnixMillis, isUpperHex, isUpperTokenId } from './hola-field-checks.js';
import { isVisibleText } from './delegate-id.js';
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

/** What one pass over a line found. */
interface LineScan {
  /** The number of slashes; -1 when the line must be uppercased first (see `scanLine`). */
  readonly slashCount: number;
  /** The positions of the first nine slashes (a subagent line has nine). */
  readonly slashes: Int32Array;
  /** The code-unit sum of the line through its last slash: what the checksum covers. */
  readonly sumThroughLastSlash: number;
}

/**
 * One pass over `line`: the slashes and the checksum's sum; `slashCount` is -1 when `uppercased` is
 * false and the line holds a character that uppercasing changes (a-z, or any non-ASCII character, to
 * be safe).
 */
function scanLine(line: string, uppercased: boolean): LineScan {
  const slashes = new Int32Array(9);
  let slashCount = 0;
  let sum = 0;
  let sumThroughLastSlash = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c >= 0x61 && (c <= 0x7a || c >= 0x80) && !uppercased)
      return { slashCount: -1, slashes, sumThroughLastSlash: 0 };
    sum += c;
    if (c === 0x2f) {
      if (slashCount < slashes.length) slashes[slashCount] = i;
      slashCount++;
      sumThroughLastSlash = sum;
    }
  }
  return { slashCount, slashes, sumThroughLastSlash };
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
    'Recompute the checksum: sum the UTF-16 code units of the signed prefix (an empty recipient counts as MUNDO), the signature and "/", mod 23, into ABCDEFGHJKMNPQRSTUVWXYZ.',
};

/** A line that goes on after a right checksum letter (whitespace, a line break) needs no new checksum. */
const TRAILING_SPACE_HINT =
  'Strip the whitespace or line break after the checksum letter; the letter itself is right.';

function fail(
  reasonCode: HolaReasonCode,
  message: string,
  extra?: { expected: string; received: string },
  hint: string = HINTS[reasonCode],
): { ok: false; failure: HolaValidationFailure } {
  return {
    ok: false,
    failure: { reasonCode, stage: HOLA_VALIDATION_STAGE, hint, message, ...extra },
  };
}

/** The JSON type name of a value that is no string and no object (`null`, a number, a boolean). */
function jsonTypeOf(value: unknown): string {
  return value === null ? 'null' : `a ${typeof value}`;
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

/**
 * Parses `input` as a line for the deployment whose host marker is `opts.serviceHost` (`host[:port]`,
 * not a URL). The marker is taken as given, unchecked, since the CLI passes a line's own: one that is no
 * marker (a URL, say) refuses every line on its host (`The host marker must be HTTP://…`).
 * `createHolaVerifier` and `buildHolaLine` check it and throw a RangeError.
 */
export function parseHola(input: unknown, opts: { serviceHost: string }): HolaParseResult {
  // A JavaScript caller without options would otherwise meet a bare TypeError deep in the checks.
  if (typeof opts?.serviceHost !== 'string')
    throw new TypeError('parseHola(input, { serviceHost }): the service host marker is required');
  // 1. payload_is_json_object
  if (typeof input === 'object' && input !== null) {
    return fail('payload_is_json_object', 'hola is a JSON object or array; it must be a string.');
  }
  if (typeof input === 'string' && isJsonObjectText(input)) {
    return fail('payload_is_json_object', 'hola is a string holding a JSON object; send the line itself.');
  }

  // 2. invalid_format: shape, host marker, token ids, nonce, recipient
  if (input === undefined)
    return fail('invalid_format', 'hola is missing: the body is a JSON object, {"hola": "<line>"}.');
  if (typeof input !== 'string')
    return fail('invalid_format', `hola must be a string, not ${jsonTypeOf(input)}.`);
  if (input.length > HOLA_MAX_LENGTH)
    return fail('invalid_format', `hola is longer than ${HOLA_MAX_LENGTH} characters.`);
  // Lines are case-insensitive and signed uppercased. Most arrive uppercase already, and the scan
  // that finds the slashes also notices when uppercasing would change something (a runtime call
  // otherwise made for every line).
  let line = input;
  let scan = scanLine(line, false);
  if (scan.slashCount < 0) {
    line = input.toUpperCase();
    scan = scanLine(line, true);
  }
  const { slashCount, slashes, sumThroughLastSlash } = scan;
  if (!line.startsWith('HOLA/')) return fail('invalid_format', 'hola must start with "HOLA/".');
  const count = slashCount + 1;
  if (count !== 8 && count !== 10) {
    return fail(
      'invalid_format',
      `hola has ${count} slash-separated fields; expected 8 (standard) or 10 (subagent).`,
    );
  }
  const form = count === 8 ? 'standard' : 'subagent';
  // Field k runs from slashes[k - 1] + 1 to slashes[k] (the last one to the end of the line). From the
  // right: checksum, signature, host marker, nonce; the middle is 2 or 4 fields.
  const checksumStart = slashes[count - 2] + 1;
  const signatureStart = slashes[count - 3] + 1;
  const signatureEnd = checksumStart - 1;
  const hostStart = slashes[count - 4] + 1;
  const hostEnd = signatureStart - 1;
  const nonceStart = slashes[count - 5] + 1;
  const nonceEnd = hostStart - 1;
  const recipientEnd = slashes[1];
  const emptyRecipient = recipientEnd === 5;
  if (
    !emptyRecipient &&
    !isUpperTokenId(line, 5, recipientEnd) &&
    !(recipientEnd === 10 && line.startsWith('MUNDO', 5))
  ) {
    return fail('invalid_format', 'The recipient must be MUNDO, empty, or a 12-letter token id.');
  }
  const expectedHost = opts.serviceHost.toUpperCase();
  if (hostEnd - hostStart !== expectedHost.length || !line.startsWith(expectedHost, hostStart)) {
    return fail('invalid_format', `The host marker must be ${expectedHost}.`, {
      expected: expectedHost,
      // Echoed as printable text: relying parties log and show this (CR LF, ESC and U+202E would come
      // back as sent), as delegate ids are kept printable for the same reason.
      received: printableText(line.slice(hostStart, hostEnd), 64),
    });
  }
  if (!isUpperHex(line, nonceStart, nonceEnd))
    return fail('invalid_format', 'The nonce must be non-empty hexadecimal (from GET /api/holanonce16ts).');

  let senderStart: number;
  let timestampStart: number;
  let delegateId: string | undefined;
  let subagentPublicKey: Uint8Array | undefined;
  if (form === 'standard') {
    senderStart = slashes[1] + 1;
    timestampStart = slashes[2] + 1;
    if (!isUpperTokenId(line, senderStart, timestampStart - 1))
      return fail('invalid_format', 'The sender token id must be 12 letters.');
  } else {
    const delegateLength = slashes[2] - slashes[1] - 1;
    senderStart = slashes[2] + 1;
    const publicKeyStart = slashes[3] + 1;
    timestampStart = slashes[4] + 1;
    if (delegateLength < 1 || delegateLength > HOLA_DELEGATE_ID_MAX_LENGTH) {
      return fail(
        'invalid_format',
        `The delegate id must be 1 to ${HOLA_DELEGATE_ID_MAX_LENGTH} characters.`,
      );
    }
    // Signed as UTF-8, where every lone surrogate becomes U+FFFD: one signature would verify for
    // every line that differs there, so a line seen in transit could be front-run under another
    // delegate id. Controls and format characters (NUL, ESC, bidi overrides) are refused too: verify
    // echoes the id and relying parties show it.
    if (hasUnprintable(line.slice(slashes[1] + 1, slashes[2])))
      return fail(
        'invalid_format',
        'The delegate id must be printable text (no control, format or lone surrogate character).',
      );
    if (!isVisibleText(line.slice(slashes[1] + 1, slashes[2])))
      return fail(
        'invalid_format',
        'The delegate id must show something, and nothing hidden (no variation selector, private-use or unassigned character).',
      );
    if (!isUpperTokenId(line, senderStart, publicKeyStart - 1))
      return fail('invalid_format', 'The issuer token id must be 12 letters.');
    const publicKeyEnd = timestampStart - 1;
    const key =
      publicKeyEnd - publicKeyStart === HOLA_PUBLIC_KEY_BASE32_LENGTH
        ? decodeBase32(line, publicKeyStart, publicKeyEnd)
        : null;
    if (!key || key.length !== 32) {
      return fail(
        'invalid_format',
        'The subagent public key must be the base32 of 32 bytes (52 characters).',
      );
    }
    delegateId = line.slice(slashes[1] + 1, slashes[2]);
    subagentPublicKey = key;
  }
  const timestampEnd = nonceStart - 1;

  // 3. unix_millis_timestamp
  if (isUnixMillis(line, timestampStart, timestampEnd))
    return fail('unix_millis_timestamp', 'The timestamp is Unix milliseconds; HOLA uses ISO 8601.');

  // 4. placeholder_signature, 5. signature_not_base32. A real signature decodes in one pass (which
  // proves the slot plain base32); only a slot that does not decode needs the character-class scan
  // that tells a placeholder from bad base32.
  const signatureText = line.slice(signatureStart, signatureEnd);
  let signatureBodyEnd = signatureEnd;
  while (signatureBodyEnd > signatureStart && line.charCodeAt(signatureBodyEnd - 1) === 0x3d)
    signatureBodyEnd--;
  const signatureLength = signatureBodyEnd - signatureStart;
  const signature =
    signatureLength === HOLA_SIGNATURE_BASE32_LENGTH
      ? decodeBase32(line, signatureStart, signatureBodyEnd)
      : null;
  const plainBase32 = signature !== null || isPaddedBase32(line, signatureStart, signatureEnd);
  // A plain base32 run can only hold the two words: the full placeholder pattern is for the rest.
  if (
    plainBase32
      ? signatureText.includes('SIGNATURE') || signatureText.includes('PLACEHOLDER')
      : PLACEHOLDER.test(signatureText)
  )
    return fail('placeholder_signature', 'The signature slot holds a placeholder.');
  if (!plainBase32 || signatureLength !== HOLA_SIGNATURE_BASE32_LENGTH) {
    return fail(
      'signature_not_base32',
      `The signature must be ${HOLA_SIGNATURE_BASE32_LENGTH} base32 characters (A-Z2-7); received ${signatureLength}.`,
    );
  }
  if (signature === null) {
    return fail(
      'signature_not_base32',
      'The signature is not the canonical base32 of 64 bytes (non-zero padding bits).',
    );
  }

  // 6. invalid_format: the timestamp grammar
  const timestampMs = parseHolaTimestamp(line, timestampStart, timestampEnd);
  if (timestampMs === null) {
    return fail('invalid_format', 'The timestamp must be ISO 8601: YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM).');
  }

  // 7. checksum_invalid
  // Over the line up to and including "/<HOST>/", with an empty recipient written as MUNDO, then the
  // signature and "/": they are contiguous in the line, so it is the sum through the last slash (taken
  // by scanLine) plus the MUNDO an empty recipient stands for, the letter holaChecksum gives.
  const checksum = line.slice(checksumStart);
  const expected = holaChecksumLetter(sumThroughLastSlash + (emptyRecipient ? MUNDO_SUM : 0));
  if (checksum !== expected) {
    const received = printableText(checksum, 16);
    // The commonest cause: a line read from a file or stdin with its line break still on it.
    const trailingSpace = checksum.length > 1 && checksum[0] === expected && /^\s+$/.test(checksum.slice(1));
    return fail(
      'checksum_invalid',
      `HOLA checksum mismatch: expected "${expected}", received "${received}".${
        trailingSpace
          ? ' The line goes on after its checksum letter with whitespace or a line break: strip it.'
          : ''
      }`,
      {
        expected,
        received,
      },
      trailingSpace ? TRAILING_SPACE_HINT : undefined,
    );
  }

  const signedPrefix = emptyRecipient
    ? `HOLA/MUNDO${line.slice(5, signatureStart)}`
    : line.slice(0, signatureStart);
  // One object shape per form, built as a literal (a spread here costs a slow property copy).
  const parsed: ParsedHola = {
    form,
    recipient: emptyRecipient ? 'MUNDO' : line.slice(5, recipientEnd),
    senderTokenId: line.slice(senderStart, senderStart + 12).toLowerCase(),
    timestamp: line.slice(timestampStart, timestampEnd),
    timestampMs,
    nonceHex: line.slice(nonceStart, nonceEnd),
    host: expectedHost,
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
