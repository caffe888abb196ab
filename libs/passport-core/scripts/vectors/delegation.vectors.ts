/**
 * Writes test-vectors/delegation.json: signed delegations for `POST /api/isauthorizedsigner`
 * (docs/protocol.md §4) from fixed seeds, and request bodies with the validation code each must produce.
 * Signatures are made here with @noble/curves directly, over the message text written out by hand
 * (`tokenId:delegateId:unixTimestamp:publicKey`, key as sent), never by the code under test.
 * Run: `npx tsx libs/passport-core/scripts/vectors/delegation.vectors.ts`.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';

const seedFor = (label: string) => new Uint8Array(createHash('sha256').update(label).digest());
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const b64url = (b: Uint8Array) => Buffer.from(b).toString('base64url');
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

const ownerSeed = seedFor('passport-delegation-owner');
const strangerSeed = seedFor('passport-delegation-stranger');
const delegateSeed = seedFor('passport-delegation-subagent');
const owner = ed25519.getPublicKey(ownerSeed);
const delegateKey = ed25519.getPublicKey(delegateSeed);
const tokenId = 'bjbvcjzqbdsj';
const unixTimestamp = 1_767_225_600;

const sign = (seed: Uint8Array, text: string) => ed25519.sign(new TextEncoder().encode(text), seed);

interface CheckVector {
  name: string;
  body: Record<string, unknown>;
  message: string;
  /** The chain the check runs against. */
  chain: { ownerId: string; revoked?: boolean; notAfter?: string; chainTimeMs: number };
  expected: { authorized: boolean; checks: Record<string, boolean>; failureReasons: string[] };
}

function signed(
  name: string,
  keyText: string,
  opts: { seed?: Uint8Array; delegateId?: string; tamper?: Partial<Record<string, unknown>> } = {},
) {
  const delegateId = opts.delegateId ?? 'research-bot-1';
  const message = `${tokenId}:${delegateId}:${unixTimestamp}:${keyText}`;
  const signature = b64url(sign(opts.seed ?? ownerSeed, message));
  return {
    name,
    message,
    body: {
      tokenId,
      base64HashOrDelegateSignerId: delegateId,
      unixTimestamp,
      publicKey: keyText,
      signature,
      ...opts.tamper,
    },
  };
}

const chainTimeMs = 1_767_225_600_000;
const ok = {
  authorized: true,
  checks: { tokenExists: true, tokenActive: true, publicKeyAuthorized: true },
  failureReasons: [],
};
const badSig = {
  authorized: false,
  checks: { tokenExists: true, tokenActive: true, publicKeyAuthorized: false },
  failureReasons: ['signature_invalid'],
};
const implicitOwner = hex(owner);

const checks: CheckVector[] = [
  {
    ...signed('owner signs, key as unpadded base64url', b64url(delegateKey)),
    chain: { ownerId: implicitOwner, chainTimeMs },
    expected: ok,
  },
  {
    ...signed('owner signs, key as padded standard base64 (signed as sent)', b64(delegateKey)),
    chain: { ownerId: implicitOwner, chainTimeMs },
    expected: ok,
  },
  {
    ...signed('named owner account holding the key', b64url(delegateKey)),
    chain: { ownerId: 'alice.test', chainTimeMs },
    expected: ok,
  },
  {
    ...signed('a stranger signs', b64url(delegateKey), { seed: strangerSeed }),
    chain: { ownerId: implicitOwner, chainTimeMs },
    expected: badSig,
  },
  {
    ...signed('signed over base64url, sent as base64 (the text differs)', b64url(delegateKey), {
      tamper: { publicKey: b64(delegateKey) },
    }),
    chain: { ownerId: implicitOwner, chainTimeMs },
    expected: badSig,
  },
  {
    ...signed('delegate id changed after signing', b64url(delegateKey), {
      tamper: { base64HashOrDelegateSignerId: 'research-bot-2' },
    }),
    chain: { ownerId: implicitOwner, chainTimeMs },
    expected: badSig,
  },
  {
    ...signed('timestamp changed after signing', b64url(delegateKey), {
      tamper: { unixTimestamp: unixTimestamp + 1 },
    }),
    chain: { ownerId: implicitOwner, chainTimeMs },
    expected: badSig,
  },
  {
    ...signed('passport transferred to the stranger after signing', b64url(delegateKey)),
    chain: { ownerId: hex(ed25519.getPublicKey(strangerSeed)), chainTimeMs },
    expected: badSig,
  },
  {
    ...signed('revoked passport, valid signature', b64url(delegateKey)),
    chain: { ownerId: implicitOwner, revoked: true, chainTimeMs },
    expected: {
      authorized: false,
      checks: { tokenExists: true, tokenActive: false, publicKeyAuthorized: true },
      failureReasons: ['token_revoked'],
    },
  },
  {
    ...signed('expired passport, valid signature', b64url(delegateKey)),
    chain: { ownerId: implicitOwner, notAfter: '2025-12-31T23:59:59Z', chainTimeMs },
    expected: {
      authorized: false,
      checks: { tokenExists: true, tokenActive: false, publicKeyAuthorized: true },
      failureReasons: ['token_not_live'],
    },
  },
  {
    ...signed('named owner account without keys', b64url(delegateKey)),
    chain: { ownerId: 'nokeys.test', chainTimeMs },
    expected: {
      authorized: false,
      checks: { tokenExists: true, tokenActive: true, publicKeyAuthorized: false },
      failureReasons: ['owner_keys_unavailable'],
    },
  },
];

const good = signed('base', b64url(delegateKey)).body;
const without = (key: string) => Object.fromEntries(Object.entries(good).filter(([k]) => k !== key));
const validation: Array<{ name: string; body: unknown; code: string }> = [
  { name: 'not an object', body: ['x'], code: 'ISAUTHORIZEDSIGNER_BODY_INVALID' },
  { name: 'null body', body: null, code: 'ISAUTHORIZEDSIGNER_BODY_INVALID' },
  { name: 'tokenId missing', body: without('tokenId'), code: 'ISAUTHORIZEDSIGNER_TOKENID_MISSING' },
  { name: 'tokenId empty', body: { ...good, tokenId: '' }, code: 'ISAUTHORIZEDSIGNER_TOKENID_MISSING' },
  {
    name: 'tokenId uppercase',
    body: { ...good, tokenId: 'BJBVCJZQBDSJ' },
    code: 'ISAUTHORIZEDSIGNER_TOKENID_INVALID',
  },
  { name: 'tokenId a number', body: { ...good, tokenId: 12 }, code: 'ISAUTHORIZEDSIGNER_TOKENID_INVALID' },
  {
    name: 'delegate id missing',
    body: without('base64HashOrDelegateSignerId'),
    code: 'ISAUTHORIZEDSIGNER_BASE64HASHORDELEGATESIGNERID_MISSING',
  },
  {
    name: 'delegate id not a string',
    body: { ...good, base64HashOrDelegateSignerId: ['a'] },
    code: 'ISAUTHORIZEDSIGNER_BASE64HASHORDELEGATESIGNERID_INVALID',
  },
  {
    name: 'delegate id of 129 characters',
    body: { ...good, base64HashOrDelegateSignerId: 'a'.repeat(129) },
    code: 'ISAUTHORIZEDSIGNER_BASE64HASHORDELEGATESIGNERID_INVALID_LENGTH',
  },
  {
    name: 'unixTimestamp missing',
    body: without('unixTimestamp'),
    code: 'ISAUTHORIZEDSIGNER_UNIXTIMESTAMP_MISSING',
  },
  {
    name: 'unixTimestamp negative',
    body: { ...good, unixTimestamp: -1 },
    code: 'ISAUTHORIZEDSIGNER_UNIXTIMESTAMP_INVALID',
  },
  {
    name: 'unixTimestamp fractional',
    body: { ...good, unixTimestamp: 1.5 },
    code: 'ISAUTHORIZEDSIGNER_UNIXTIMESTAMP_INVALID',
  },
  {
    name: 'unixTimestamp as a string',
    body: { ...good, unixTimestamp: String(unixTimestamp) },
    code: 'ISAUTHORIZEDSIGNER_UNIXTIMESTAMP_INVALID',
  },
  { name: 'publicKey missing', body: without('publicKey'), code: 'ISAUTHORIZEDSIGNER_PUBLICKEY_MISSING' },
  {
    name: 'publicKey not a string',
    body: { ...good, publicKey: 7 },
    code: 'ISAUTHORIZEDSIGNER_PUBLICKEY_INVALID',
  },
  {
    name: 'publicKey not base64',
    body: { ...good, publicKey: 'not base64!' },
    code: 'ISAUTHORIZEDSIGNER_PUBLICKEY_DECODE_FAILED',
  },
  {
    name: 'publicKey mixing both alphabets',
    body: { ...good, publicKey: 'ab-c/d' },
    code: 'ISAUTHORIZEDSIGNER_PUBLICKEY_DECODE_FAILED',
  },
  {
    name: 'publicKey of 31 bytes',
    body: { ...good, publicKey: b64url(delegateKey.slice(1)) },
    code: 'ISAUTHORIZEDSIGNER_PUBLICKEY_INVALID_LENGTH',
  },
  { name: 'signature missing', body: without('signature'), code: 'ISAUTHORIZEDSIGNER_SIGNATURE_MISSING' },
  {
    name: 'signature not a string',
    body: { ...good, signature: {} },
    code: 'ISAUTHORIZEDSIGNER_SIGNATURE_INVALID',
  },
  {
    name: 'signature not base64',
    body: { ...good, signature: '***' },
    code: 'ISAUTHORIZEDSIGNER_SIGNATURE_DECODE_FAILED',
  },
  {
    name: 'signature of 32 bytes',
    body: { ...good, signature: b64url(delegateKey) },
    code: 'ISAUTHORIZEDSIGNER_SIGNATURE_INVALID_LENGTH',
  },
  {
    name: 'first failing field wins',
    body: { ...good, tokenId: 'x', signature: '***' },
    code: 'ISAUTHORIZEDSIGNER_TOKENID_INVALID',
  },
];

const file = {
  description:
    'Signed delegations for POST /api/isauthorizedsigner (docs/protocol.md §4): the owner signs UTF-8 `tokenId:delegateId:unixTimestamp:publicKey` ' +
    '(publicKey exactly as sent). Seeds are SHA-256 of the labels below; signatures made with @noble/curves. `checks` run against a chain ' +
    'holding passport `tokenId` owned by `chain.ownerId` (the named account alice.test holds the owner key).',
  seeds: {
    owner: 'passport-delegation-owner',
    stranger: 'passport-delegation-stranger',
    delegate: 'passport-delegation-subagent',
  },
  ownerPublicKeyHex: hex(owner),
  delegatePublicKeyHex: hex(delegateKey),
  namedAccounts: { 'alice.test': [hex(owner)], 'nokeys.test': [] },
  checks,
  validation,
};
const out = fileURLToPath(new URL('../../test-vectors/delegation.json', import.meta.url));
writeFileSync(out, `${JSON.stringify(file, null, 2)}\n`);
console.log(`wrote ${out}: ${checks.length} checks, ${validation.length} validation cases`);
