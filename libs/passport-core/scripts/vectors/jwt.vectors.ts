/**
 * Writes test-vectors/jwt.json: issuer-style EdDSA JWTs as the production service mints them, and the
 * renewal arithmetic, computed with node:crypto and plain arithmetic only (nothing from the library),
 * so the spec that replays them checks the library against an independent construction.
 * Run: `npx tsx libs/passport-core/scripts/vectors/jwt.vectors.ts`.
 *
 * - `passport_idsignature` = base64url(Ed25519(server key, UTF-8 `passport_id + ISO-8601 of iat`)),
 *   where the ISO text is JavaScript's `Date#toISOString()` (milliseconds `.000`, `Z`).
 * - The JWT is compact JWS: base64url(JSON header) . base64url(JSON claims) . base64url(signature),
 *   header `{"alg":"EdDSA","typ":"JWT"}`, signed with the same server key.
 * - Renewal: due when `5 × (exp − now) ≤ exp − iat` and `now < exp`; the new exp is
 *   `now + ⌊(exp − iat) × 0.85⌋`, capped by `session_exp` and `not_after`, and no renewal when that
 *   does not pass the old exp.
 */
import { createHash, createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const b64url = (b: Uint8Array | string) => Buffer.from(b).toString('base64url');
const seedOf = (label: string) => createHash('sha256').update(`passport-vectors/${label}`).digest();
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function keyOf(seed: Buffer) {
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return { privateKey, publicKey: spki.subarray(spki.length - 32) };
}

const server = keyOf(seedOf('jwt/server'));
const stranger = keyOf(seedOf('jwt/stranger'));
const serverSeedHex = seedOf('jwt/server').toString('hex');
const serverTokenId = 'bhahbkbramax';
const serverOwner = server.publicKey.toString('hex');
const iat = 1_780_000_000; // 2026-05-28T20:26:40Z

const idMessage = (passportId: string, at: number) => `${passportId}${new Date(at * 1000).toISOString()}`;
const idSignature = (key: ReturnType<typeof keyOf>, passportId: string, at: number) =>
  b64url(sign(null, Buffer.from(idMessage(passportId, at), 'utf8'), key.privateKey));

function jwt(claims: Record<string, unknown>): string {
  const input = `${b64url(JSON.stringify({ alg: 'EdDSA', typ: 'JWT' }))}.${b64url(JSON.stringify(claims))}`;
  return `${input}.${b64url(sign(null, Buffer.from(input, 'ascii'), server.privateKey))}`;
}

const baseClaims = {
  iss: 'https://api.example',
  sub: 'bc=local;sc=passport.test;id=devroot;sub=chbvcnurbkuw',
  aud: serverOwner,
  iat,
  nbf: iat,
  exp: iat + 3600,
  jti: 'jti01KSQ4ZS00AAAAAAAAAAAAAAAA',
  session_id: 'sess_chbvcnurbkuw_01KSQ4ZS00BBBBBBBBBBBBBBBB',
  session_iat: iat,
  session_exp: iat + 5200,
  session_status: 'new',
  passport_id: serverTokenId,
  passport_owner: serverOwner,
  passport_idsignature: idSignature(server, serverTokenId, iat),
};

const tokens = [
  { note: 'a login token as the issuer mints it', claims: baseClaims, expect: 'OK' },
  {
    note: 'a renewed token: new iat, jti, exp and passport_idsignature',
    claims: {
      ...baseClaims,
      iat: iat + 2900,
      exp: iat + 2900 + 3060,
      jti: 'jti01KSQ4ZS00CCCCCCCCCCCCCCCC',
      session_status: 'renewed_light_verification',
      passport_idsignature: idSignature(server, serverTokenId, iat + 2900),
    },
    expect: 'OK',
  },
  {
    note: 'no passport_idsignature',
    claims: { ...baseClaims, passport_idsignature: undefined },
    expect: { code: 'SERVER_TOKEN_IDENTITY_MISMATCH', reason: 'passport_idsignature_missing' },
  },
  {
    note: 'the signature of another iat',
    claims: { ...baseClaims, passport_idsignature: idSignature(server, serverTokenId, iat - 1) },
    expect: { code: 'SERVER_TOKEN_IDENTITY_MISMATCH', reason: 'passport_idsignature_invalid' },
  },
  {
    note: 'signed over the iat in seconds instead of its ISO text',
    claims: {
      ...baseClaims,
      passport_idsignature: b64url(
        sign(null, Buffer.from(`${serverTokenId}${iat}`, 'utf8'), server.privateKey),
      ),
    },
    expect: { code: 'SERVER_TOKEN_IDENTITY_MISMATCH', reason: 'passport_idsignature_invalid' },
  },
  {
    note: 'signed by another key',
    claims: { ...baseClaims, passport_idsignature: idSignature(stranger, serverTokenId, iat) },
    expect: { code: 'SERVER_TOKEN_IDENTITY_MISMATCH', reason: 'passport_idsignature_invalid' },
  },
].map((t) => {
  const claims = JSON.parse(JSON.stringify(t.claims)) as Record<string, unknown>;
  return {
    note: t.note,
    idSignatureMessage: idMessage(serverTokenId, claims.iat as number),
    jwt: jwt(claims),
    claims,
    expect: t.expect,
  };
});

interface RenewalCase {
  note: string;
  iat: number;
  exp: number;
  session_exp: number;
  not_after: number | null;
  now: number;
  due: boolean;
  renewedExp: number | null;
}

function renewal(note: string, c: Omit<RenewalCase, 'note' | 'due' | 'renewedExp'>): RenewalCase {
  const due = c.now < c.exp && 5 * (c.exp - c.now) <= c.exp - c.iat;
  let renewedExp: number | null = null;
  if (due) {
    let exp = c.now + Math.floor((c.exp - c.iat) * 0.85);
    exp = Math.min(exp, c.session_exp);
    if (c.not_after !== null) exp = Math.min(exp, c.not_after);
    renewedExp = exp > c.exp ? exp : null;
  }
  return { note, ...c, due, renewedExp };
}

const renewals = [
  renewal('fresh token: not due', {
    iat,
    exp: iat + 3600,
    session_exp: iat + 5200,
    not_after: null,
    now: iat + 10,
  }),
  renewal('one second before the window', {
    iat,
    exp: iat + 3600,
    session_exp: iat + 5200,
    not_after: null,
    now: iat + 2879,
  }),
  renewal('first second of the last 20 %', {
    iat,
    exp: iat + 3600,
    session_exp: iat + 5200,
    not_after: null,
    now: iat + 2880,
  }),
  renewal('capped by session_exp', {
    iat,
    exp: iat + 3600,
    session_exp: iat + 5200,
    not_after: null,
    now: iat + 3000,
  }),
  renewal('capped by not_after', {
    iat,
    exp: iat + 3600,
    session_exp: iat + 9000,
    not_after: iat + 4000,
    now: iat + 3000,
  }),
  renewal('session_exp reached by the old token: no renewal', {
    iat,
    exp: iat + 5200,
    session_exp: iat + 5200,
    not_after: null,
    now: iat + 5000,
  }),
  renewal('a renewed token renews again, 0.85 × shorter', {
    iat: iat + 2900,
    exp: iat + 5960,
    session_exp: iat + 20000,
    not_after: null,
    now: iat + 5400,
  }),
  renewal('expired: not due', {
    iat,
    exp: iat + 100,
    session_exp: iat + 5200,
    not_after: null,
    now: iat + 100,
  }),
  renewal('short jwt_duration: 10 s token at 8 s', {
    iat,
    exp: iat + 10,
    session_exp: iat + 5200,
    not_after: null,
    now: iat + 8,
  }),
];

const out = {
  description:
    'Issuer-style EdDSA JWTs with passport_idsignature, and renewal arithmetic; computed with node:crypto only (libs/passport-core/scripts/vectors/jwt.vectors.ts).',
  serverSeedHex,
  serverPublicKeyHex: server.publicKey.toString('hex'),
  serverTokenId,
  serverOwner,
  tokens,
  renewals,
};
const target = fileURLToPath(new URL('../../test-vectors/jwt.json', import.meta.url));
writeFileSync(target, `${JSON.stringify(out, null, 2)}\n`);
console.log(`wrote ${target}: ${tokens.length} tokens, ${renewals.length} renewal cases`);
