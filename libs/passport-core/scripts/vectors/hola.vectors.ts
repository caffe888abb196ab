/**
 * Writes test-vectors/hola.json: signed HOLA lines (standard and subagent) from fixed seeds
 * (seed = sha256 of a fixed label), the checksum example of docs/protocol.md §2, and invalid lines each
 * with the reasonCode the parser must give. Expected reason codes are written here by hand from
 * docs/protocol.md §2, never taken from the parser under test.
 * Run: `npx tsx libs/passport-core/scripts/vectors/hola.vectors.ts`.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { encodeBase32 } from '../../src/codecs/base32.codec.js';
import { encodeHex } from '../../src/codecs/hex.codec.js';
import { utf8 } from '../../src/codecs/utf8.codec.js';
import { createNobleSigner } from '../../src/crypto/noble.signer.js';
import { codeUnitSum, holaChecksum } from '../../src/hola/hola.checksum.js';
import { buildHolaLine } from '../../src/hola/hola.builder.js';

const sha256 = (label: string) => new Uint8Array(createHash('sha256').update(label).digest());
const SERVICE_HOST = 'passport.example:8443';
const TIMESTAMP = '2026-04-19T10:47:00.000Z';
const nonce = (label: string) => encodeHex(sha256(label).subarray(0, 16)).toUpperCase();

// --- valid lines -------------------------------------------------------------------------------------
interface ValidSpec {
  id: string;
  seedLabel: string;
  recipient?: string;
  senderTokenId: string;
  timestamp?: string;
  subagent?: { delegateId: string };
}
const validSpecs: ValidSpec[] = [
  { id: 'standard-mundo', seedLabel: 'passport-core/hola/sender', senderTokenId: 'chbvcnurbkuw' },
  {
    id: 'standard-to-peer',
    seedLabel: 'passport-core/hola/sender',
    recipient: 'lhsrldbjsnlh',
    senderTokenId: 'chbvcnurbkuw',
  },
  {
    id: 'standard-offset-timestamp',
    seedLabel: 'passport-core/hola/sender',
    senderTokenId: 'chbvcnurbkuw',
    timestamp: '2026-04-19T12:47:00+02:00',
  },
  {
    id: 'standard-no-fraction',
    seedLabel: 'passport-core/hola/sender',
    senderTokenId: 'chbvcnurbkuw',
    timestamp: '2026-04-19T10:47:00Z',
  },
  {
    id: 'subagent-mundo',
    seedLabel: 'passport-core/hola/subagent',
    senderTokenId: 'bhahbkbramax',
    subagent: { delegateId: 'calendar-agent-7' },
  },
  {
    id: 'subagent-to-peer',
    seedLabel: 'passport-core/hola/subagent',
    recipient: 'chbvcnurbkuw',
    senderTokenId: 'bhahbkbramax',
    subagent: { delegateId: 'D' },
  },
];

const valid = validSpecs.map((spec) => {
  const seed = sha256(spec.seedLabel);
  const signer = createNobleSigner(seed);
  const timestamp = spec.timestamp ?? TIMESTAMP;
  const nonceHex = nonce(`passport-core/hola/nonce/${spec.id}`);
  const line = buildHolaLine({
    recipient: spec.recipient,
    senderTokenId: spec.senderTokenId,
    timestamp,
    nonceHex,
    serviceHost: SERVICE_HOST,
    signer,
    subagent: spec.subagent,
  });
  const fields = line.split('/');
  const signedPrefix = fields.slice(0, -2).join('/') + '/';
  return {
    id: spec.id,
    form: spec.subagent ? 'subagent' : 'standard',
    seedLabel: spec.seedLabel,
    seed: encodeHex(seed),
    publicKey: encodeHex(signer.publicKey),
    ...(spec.subagent
      ? {
          publicKeyBase32: encodeBase32(signer.publicKey),
          delegateId: spec.subagent.delegateId.toUpperCase(),
        }
      : {}),
    serviceHost: SERVICE_HOST,
    recipient: (spec.recipient ?? 'MUNDO').toUpperCase(),
    senderTokenId: spec.senderTokenId,
    timestamp,
    timestampMs: Date.parse(timestamp),
    nonceHex,
    signedPrefix,
    signedBytes: encodeHex(utf8(signedPrefix)),
    signature: encodeHex(signer.sign(utf8(signedPrefix))),
    checksum: fields.at(-1),
    line,
  };
});

// --- the checksum example of docs/protocol.md §2 ----------------------------------------------------------
const examplePrefix =
  'HOLA/MUNDO/BKBVEHBDCRGM/2026-04-19T10:47:00.000Z/4F9A3C7E2D1B9A4CDEADBEEFCAFEBABE/API.IDENTYCLAW.COM/';
const exampleSignature =
  'FCHWM6BHKU43A4GB2HO4J455TH3AHAV4WCJJOWBS3VLWSZDRFKR6PYCV7RTPLYABEUY75BOQ4ONOOJ3N4U5JAHB2YECVNDMISI3DUDI';
const checksumExample = {
  source: 'docs/protocol.md §2',
  signedPrefix: examplePrefix,
  signatureText: exampleSignature,
  codeUnitSum: 13807,
  checksum: 'H',
  serviceHost: 'api.identyclaw.com',
  line: `${examplePrefix}${exampleSignature}/H`,
};
if (
  codeUnitSum(examplePrefix + exampleSignature + '/') !== 13807 ||
  holaChecksum(examplePrefix, exampleSignature) !== 'H'
) {
  throw new Error('the §2 checksum example does not reproduce');
}

// --- invalid lines -----------------------------------------------------------------------------------
const base = valid[0];
const sub = valid.find((v) => v.id === 'subagent-mundo')!;
/** Replaces field `index` (of the slash split) and recomputes the checksum so that only that field is wrong. */
function withField(line: string, index: number, value: string, recomputeChecksum = true): string {
  const fields = line.split('/');
  fields[index] = value;
  if (recomputeChecksum && fields.length >= 3) {
    const prefix = fields.slice(0, -2).join('/') + '/';
    const normalised = prefix.toUpperCase().replace(/^HOLA\/\//, 'HOLA/MUNDO/');
    fields[fields.length - 1] = holaChecksum(normalised, fields.at(-2)!.toUpperCase());
  }
  return fields.join('/');
}
/** Sets the lowest of the 3 padding bits of the last base32 character (the 64 data bytes stay the same). */
const withPaddingBit = (signatureText: string) => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  return signatureText.slice(0, -1) + alphabet[alphabet.indexOf(signatureText.at(-1)!) | 1];
};
const wrongChecksum = (line: string) => {
  const right = line.at(-1)!;
  return line.slice(0, -1) + (right === 'A' ? 'B' : 'A');
};

const invalid: { id: string; input: unknown; reasonCode: string; note: string }[] = [
  // 1. payload_is_json_object
  { id: 'object', input: { hola: base.line }, reasonCode: 'payload_is_json_object', note: 'a nested object' },
  { id: 'array', input: [base.line], reasonCode: 'payload_is_json_object', note: 'an array' },
  {
    id: 'json-object-string',
    input: JSON.stringify({ hola: base.line }),
    reasonCode: 'payload_is_json_object',
    note: 'a string holding a JSON object',
  },
  {
    id: 'json-object-string-too-long',
    input: JSON.stringify({ hola: 'x'.repeat(600) }),
    reasonCode: 'payload_is_json_object',
    note: 'checked before the length',
  },
  // 2. invalid_format
  { id: 'number', input: 42, reasonCode: 'invalid_format', note: 'not a string' },
  { id: 'null', input: null, reasonCode: 'invalid_format', note: 'not a string' },
  { id: 'empty', input: '', reasonCode: 'invalid_format', note: 'no prefix' },
  {
    id: 'too-long',
    input: base.line + '/' + 'A'.repeat(513 - base.line.length - 1),
    reasonCode: 'invalid_format',
    note: '513 characters',
  },
  {
    id: 'wrong-prefix',
    input: base.line.replace(/^HOLA/, 'HELO'),
    reasonCode: 'invalid_format',
    note: 'must start HOLA/',
  },
  {
    id: 'seven-fields',
    input: base.line
      .split('/')
      .filter((_, i) => i !== 3)
      .join('/'),
    reasonCode: 'invalid_format',
    note: 'timestamp slot removed',
  },
  {
    id: 'nine-fields',
    input: base.line.replace('/CHBVCNURBKUW/', '/EXTRA/CHBVCNURBKUW/'),
    reasonCode: 'invalid_format',
    note: '9 fields',
  },
  {
    id: 'wrong-host',
    input: withField(base.line, 5, 'OTHER.EXAMPLE'),
    reasonCode: 'invalid_format',
    note: 'host marker differs from SERVICE_HOST',
  },
  {
    id: 'bad-sender',
    input: withField(base.line, 2, 'CHBVCNURBKU'),
    reasonCode: 'invalid_format',
    note: '11-letter sender',
  },
  {
    id: 'sender-with-digit',
    input: withField(base.line, 2, 'CHBVCNURBKU1'),
    reasonCode: 'invalid_format',
    note: 'sender with a digit',
  },
  {
    id: 'bad-nonce',
    input: withField(base.line, 4, 'XYZ'),
    reasonCode: 'invalid_format',
    note: 'nonce not hex',
  },
  {
    id: 'empty-nonce',
    input: withField(base.line, 4, ''),
    reasonCode: 'invalid_format',
    note: 'empty nonce',
  },
  {
    id: 'bad-recipient',
    input: withField(base.line, 1, 'BOB'),
    reasonCode: 'invalid_format',
    note: 'recipient neither MUNDO nor a token id',
  },
  {
    id: 'subagent-short-key',
    input: withField(sub.line, 4, sub.publicKeyBase32!.slice(0, 51)),
    reasonCode: 'invalid_format',
    note: '51-character key',
  },
  {
    id: 'subagent-long-delegate',
    input: withField(sub.line, 2, 'D'.repeat(129)),
    reasonCode: 'invalid_format',
    note: '129-character delegate id',
  },
  {
    id: 'subagent-empty-delegate',
    input: withField(sub.line, 2, ''),
    reasonCode: 'invalid_format',
    note: 'empty delegate id',
  },
  {
    id: 'subagent-bad-issuer',
    input: withField(sub.line, 3, 'BHAHBKBRAMA'),
    reasonCode: 'invalid_format',
    note: '11-letter issuer',
  },
  // 3. unix_millis_timestamp
  {
    id: 'unix-millis',
    input: withField(base.line, 3, '1776595620000'),
    reasonCode: 'unix_millis_timestamp',
    note: '13 digits',
  },
  {
    id: 'unix-seconds',
    input: withField(base.line, 3, '1776595620'),
    reasonCode: 'unix_millis_timestamp',
    note: '10 digits count too',
  },
  // 4. placeholder_signature
  {
    id: 'placeholder-angle',
    input: withField(base.line, 6, '<SIGNATURE>'),
    reasonCode: 'placeholder_signature',
    note: '<SIGNATURE>',
  },
  {
    id: 'placeholder-ellipsis',
    input: withField(base.line, 6, 'ABC...XYZ'),
    reasonCode: 'placeholder_signature',
    note: '...',
  },
  {
    id: 'placeholder-word',
    input: withField(base.line, 6, 'PLACEHOLDER'),
    reasonCode: 'placeholder_signature',
    note: 'the word',
  },
  {
    id: 'placeholder-lowercase-word',
    input: withField(base.line, 6, 'your_signature_here'),
    reasonCode: 'placeholder_signature',
    note: 'uppercased first',
  },
  {
    id: 'placeholder-space',
    input: withField(base.line, 6, 'AAAA BBBB'),
    reasonCode: 'placeholder_signature',
    note: 'whitespace',
  },
  {
    id: 'placeholder-braces',
    input: withField(base.line, 6, '{SIG}'),
    reasonCode: 'placeholder_signature',
    note: 'braces',
  },
  // 5. signature_not_base32
  {
    id: 'signature-short',
    input: withField(base.line, 6, base.line.split('/')[6].slice(0, 102)),
    reasonCode: 'signature_not_base32',
    note: '102 characters',
  },
  {
    id: 'signature-digit-1',
    input: withField(base.line, 6, '1' + base.line.split('/')[6].slice(1)),
    reasonCode: 'signature_not_base32',
    note: '1 is not base32',
  },
  {
    id: 'signature-base64',
    input: withField(base.line, 6, Buffer.from(base.signature, 'hex').toString('base64url')),
    reasonCode: 'signature_not_base32',
    note: 'base64url instead of base32',
  },
  {
    id: 'signature-padding-bits',
    input: withField(base.line, 6, withPaddingBit(base.line.split('/')[6])),
    reasonCode: 'signature_not_base32',
    note: 'non-zero padding bits in the last character',
  },
  // 6. invalid_format (timestamp)
  {
    id: 'timestamp-minus-one',
    input: withField(base.line, 3, '-1'),
    reasonCode: 'invalid_format',
    note: 'Date.parse accepts it; we do not',
  },
  {
    id: 'timestamp-month-13',
    input: withField(base.line, 3, '2026-13-01T00:00:00Z'),
    reasonCode: 'invalid_format',
    note: 'month 13',
  },
  {
    id: 'timestamp-feb-30',
    input: withField(base.line, 3, '2026-02-30T00:00:00Z'),
    reasonCode: 'invalid_format',
    note: 'no 30 February',
  },
  {
    id: 'timestamp-no-zone',
    input: withField(base.line, 3, '2026-04-19T10:47:00.000'),
    reasonCode: 'invalid_format',
    note: 'no zone',
  },
  {
    id: 'timestamp-space',
    input: withField(base.line, 3, '2026-04-19 10:47:00Z'),
    reasonCode: 'invalid_format',
    note: 'space for T',
  },
  {
    id: 'timestamp-9-digits-only',
    input: withField(base.line, 3, '177659562'),
    reasonCode: 'invalid_format',
    note: '9 digits: not Unix millis, not ISO',
  },
  // 7. checksum_invalid
  {
    id: 'checksum-wrong',
    input: wrongChecksum(base.line),
    reasonCode: 'checksum_invalid',
    note: 'one letter off',
  },
  {
    id: 'checksum-subagent-wrong',
    input: wrongChecksum(sub.line),
    reasonCode: 'checksum_invalid',
    note: 'subagent form',
  },
  {
    id: 'checksum-empty',
    input: base.line.slice(0, -1),
    reasonCode: 'checksum_invalid',
    note: 'empty checksum slot',
  },
  {
    id: 'checksum-trailing-newline',
    input: base.line + '\n',
    reasonCode: 'checksum_invalid',
    note: 'lines are not trimmed',
  },
  // Order: the earlier rule wins when several are broken.
  {
    id: 'order-host-before-millis',
    input: withField(withField(base.line, 3, '1776595620000'), 5, 'OTHER.EXAMPLE'),
    reasonCode: 'invalid_format',
    note: 'invalid_format before unix_millis_timestamp',
  },
  {
    id: 'order-millis-before-placeholder',
    input: withField(withField(base.line, 6, '<SIG>'), 3, '1776595620000'),
    reasonCode: 'unix_millis_timestamp',
    note: 'unix_millis_timestamp before placeholder_signature',
  },
  {
    id: 'order-placeholder-before-checksum',
    input: wrongChecksum(withField(base.line, 6, 'SIGNATURE')),
    reasonCode: 'placeholder_signature',
    note: 'placeholder before checksum',
  },
  {
    id: 'order-base32-before-timestamp',
    input: withField(withField(base.line, 3, '-1'), 6, '0'.repeat(103)),
    reasonCode: 'signature_not_base32',
    note: 'signature_not_base32 before the timestamp grammar',
  },
  {
    id: 'order-timestamp-before-checksum',
    input: wrongChecksum(withField(base.line, 3, '2026-04-19')),
    reasonCode: 'invalid_format',
    note: 'timestamp grammar before checksum',
  },
];

/** Lines that parse (they may still fail verification). */
const parseable = [
  {
    id: 'lowercase-line',
    input: base.line.toLowerCase(),
    note: 'lines are case-insensitive: same signed prefix',
    signedPrefix: base.signedPrefix,
  },
  {
    id: 'empty-recipient',
    input: withField(base.line, 1, ''),
    note: 'empty recipient means MUNDO; same signed prefix',
    signedPrefix: base.signedPrefix,
  },
  {
    id: 'padded-signature',
    input: (() => {
      const f = base.line.split('/');
      return withField(base.line, 6, f[6] + '=');
    })(),
    note: 'trailing = tolerated; the checksum covers the signature as in the line',
    signedPrefix: base.signedPrefix,
  },
  {
    id: 'checksum-example',
    input: checksumExample.line,
    serviceHost: checksumExample.serviceHost,
    note: 'docs/protocol.md §2 example',
    signedPrefix: examplePrefix,
  },
];

const document = {
  description:
    'HOLA line vectors (docs/protocol.md §2). `valid` lines are signed with seed = sha256(seedLabel) (RFC 8032, deterministic); ' +
    '`invalid` inputs carry the early-validation reasonCode the parser must give (stage format_checksum_and_payload_validation); ' +
    '`parseable` inputs pass early validation.',
  generator: 'libs/passport-core/scripts/vectors/hola.vectors.ts',
  serviceHost: SERVICE_HOST,
  checksumExample,
  valid,
  parseable,
  invalid,
};
const target = fileURLToPath(new URL('../../test-vectors/hola.json', import.meta.url));
writeFileSync(target, JSON.stringify(document, null, 2) + '\n');
console.log(
  `wrote ${valid.length} valid, ${parseable.length} parseable and ${invalid.length} invalid HOLA vectors to ${target}`,
);
