/**
 * Writes test-vectors/webhook.json: signed webhook requests (docs/protocol.md §10) from a fixed seed,
 * each with the receiver's expected verdict at a given time. Signatures are made here with
 * @noble/curves over node:crypto's SHA-256 of `body + X-Timestamp`, never by the code under test.
 * Run: `npx tsx libs/passport-core/scripts/vectors/webhook.vectors.ts`.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';

const seedFor = (label: string) => new Uint8Array(createHash('sha256').update(label).digest());
const serverSeed = seedFor('passport-webhook-server');
const strangerSeed = seedFor('passport-webhook-stranger');
const serverKey = ed25519.getPublicKey(serverSeed);
const strangerKey = ed25519.getPublicKey(strangerSeed);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const b64url = (b: Uint8Array) => Buffer.from(b).toString('base64url');
const serverTokenId = 'chbvcnurbkuw';
const timestampMs = 1_767_225_600_000;

const body = JSON.stringify({
  event: 'testhola_validation_success',
  data: {
    peerTokenId: 'bjbvcjzqbdsj',
    serverTokenId,
    recipient: 'CHBVCNURBKUW',
    timestamp: '2026-01-01T00:00:00.000Z',
    endpoint: '/api/testhola',
  },
  isError: false,
  requestId: '01KDX3V7M9Q2W8E4R6T5Y1U3I0',
});

function signed(seed: Uint8Array, text: string, ts: string) {
  const digest = createHash('sha256')
    .update(Buffer.concat([Buffer.from(text, 'utf8'), Buffer.from(ts, 'utf8')]))
    .digest();
  return hex(ed25519.sign(new Uint8Array(digest), seed));
}

function request(
  opts: {
    seed?: Uint8Array;
    key?: Uint8Array;
    ts?: string;
    bodyText?: string;
    signedBody?: string;
    signedTs?: string;
  } = {},
) {
  const key = opts.key ?? serverKey;
  const ts = opts.ts ?? String(timestampMs);
  return {
    body: opts.bodyText ?? body,
    headers: {
      'content-type': 'application/json',
      'x-timestamp': ts,
      'x-signature': signed(
        opts.seed ?? serverSeed,
        opts.signedBody ?? opts.bodyText ?? body,
        opts.signedTs ?? ts,
      ),
      'x-request-id': '01KDX3V7M9Q2W8E4R6T5Y1U3I0',
      'x-passport-public-key': b64url(key),
      'x-passport-implicit-account': hex(key),
      'x-passport-token-id': serverTokenId,
    },
  };
}

const cases = [
  {
    name: 'fresh request from the server passport',
    ...request(),
    nowMs: timestampMs + 1_000,
    expected: { valid: true },
  },
  { name: 'exactly 300 s old', ...request(), nowMs: timestampMs + 300_000, expected: { valid: true } },
  {
    name: '301 s old',
    ...request(),
    nowMs: timestampMs + 301_000,
    expected: { valid: false, reason: 'timestamp_stale' },
  },
  {
    name: 'exactly 30 s in the future',
    ...request(),
    nowMs: timestampMs - 30_000,
    expected: { valid: true },
  },
  {
    name: '31 s in the future',
    ...request(),
    nowMs: timestampMs - 31_000,
    expected: { valid: false, reason: 'timestamp_future' },
  },
  {
    name: 'body changed after signing (one space)',
    ...request({ bodyText: body.replace('"isError":false', '"isError": false'), signedBody: body }),
    nowMs: timestampMs,
    expected: { valid: false, reason: 'signature_invalid' },
  },
  {
    name: 'timestamp header changed after signing',
    ...request({ ts: String(timestampMs + 1), signedTs: String(timestampMs) }),
    nowMs: timestampMs,
    expected: { valid: false, reason: 'signature_invalid' },
  },
  {
    name: 'a stranger signs with its own key in the headers',
    ...request({ seed: strangerSeed, key: strangerKey }),
    nowMs: timestampMs,
    expected: { valid: false, reason: 'key_not_expected' },
  },
  {
    name: 'a stranger signs but names the server key',
    ...request({ seed: strangerSeed }),
    nowMs: timestampMs,
    expected: { valid: false, reason: 'signature_invalid' },
  },
  {
    name: 'timestamp in seconds, not milliseconds',
    ...request({ ts: String(timestampMs / 1000) }),
    nowMs: timestampMs,
    expected: { valid: false, reason: 'timestamp_stale' },
  },
  {
    name: 'timestamp not decimal',
    ...request({ ts: '2026-01-01T00:00:00Z' }),
    nowMs: timestampMs,
    expected: { valid: false, reason: 'timestamp_invalid' },
  },
];

const file = {
  description:
    'Webhook requests signed per docs/protocol.md §10: X-Signature = lowercase hex Ed25519 over SHA-256(UTF-8(body + X-Timestamp)). ' +
    'The server key is derived from seed SHA-256("passport-webhook-server"); the receiver expects that key for token id serverTokenId.',
  seeds: { server: 'passport-webhook-server', stranger: 'passport-webhook-stranger' },
  serverTokenId,
  serverPublicKeyHex: hex(serverKey),
  windowMs: { past: 300_000, future: 30_000 },
  cases,
};
const out = fileURLToPath(new URL('../../test-vectors/webhook.json', import.meta.url));
writeFileSync(out, `${JSON.stringify(file, null, 2)}\n`);
console.log(`wrote ${out}: ${cases.length} cases`);
