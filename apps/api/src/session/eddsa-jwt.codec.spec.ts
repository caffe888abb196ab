import { createHmac, generateKeyPairSync } from 'node:crypto';
import { SignJWT, importJWK } from 'jose';
import { EddsaJwtCodec, type JwtClaims } from './eddsa-jwt.codec.js';

const ISSUER = 'https://api.example.test';
const AUDIENCE = 'a'.repeat(64);

function keyPair() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32);
  const pub = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return { seed: new Uint8Array(seed), pub: new Uint8Array(pub) };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('EddsaJwtCodec', () => {
  let now = 1_800_000_000_000;
  const clock = { nowMs: () => now };
  const server = keyPair();
  const codec = new EddsaJwtCodec({
    secretSeed: server.seed,
    publicKey: server.pub,
    issuer: ISSUER,
    audience: AUDIENCE,
    clock,
  });
  const iat = () => Math.floor(now / 1000);
  const claims = (extra: Partial<JwtClaims> = {}): JwtClaims => ({
    iss: ISSUER,
    sub: 'bc=local;sc=passport.test;id=devroot;sub=bjbvcjzqbdsj',
    aud: AUDIENCE,
    iat: iat(),
    nbf: iat(),
    exp: iat() + 3600,
    jti: 'jti-1',
    passport_subjectuniqueidentifier_url: null,
    ...extra,
  });

  beforeEach(() => {
    now = 1_800_000_000_000;
  });

  it('signs EdDSA with typ JWT and verifies its own tokens', async () => {
    const token = await codec.sign(claims());
    const header = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString());
    expect(header).toEqual({ alg: 'EdDSA', typ: 'JWT' });
    const result = await codec.verify(token);
    expect(result).toEqual({
      ok: true,
      claims: expect.objectContaining({ sub: claims().sub, passport_subjectuniqueidentifier_url: null }),
    });
  });

  it('signs byte for byte what jose (WebCrypto) signs for the same claims and key', async () => {
    const joseKey = await importJWK(
      {
        kty: 'OKP',
        crv: 'Ed25519',
        x: Buffer.from(server.pub).toString('base64url'),
        d: Buffer.from(server.seed).toString('base64url'),
      },
      'EdDSA',
    );
    const samples: JwtClaims[] = [
      claims(),
      claims({
        passport_subjectuniqueidentifier_url: 'https://home.example.test',
        session_id: 'sess_x_01',
        nested: { a: [1, 'é', null] },
      }),
      claims({ unicode: 'Ada — ✓ 🤖', empty: '', zero: 0, negative: -1.5 }),
    ];
    for (const sample of samples) {
      const viaJose = await new SignJWT(sample)
        .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' })
        .sign(joseKey);
      expect(await codec.sign(sample)).toBe(viaJose);
    }
  });

  it('refuses non-finite times as jose does', async () => {
    await expect(codec.sign(claims({ exp: Number.POSITIVE_INFINITY }))).rejects.toThrow(TypeError);
    await expect(codec.sign(claims({ iat: Number.NaN }))).rejects.toThrow(TypeError);
  });

  it.each([
    ['empty', ''],
    ['two segments', 'abc.def'],
    ['not base64url', 'a$b.c.d'],
    ['segments that are not JSON objects', `${Buffer.from('[]').toString('base64url')}.${b64(1)}.sig`],
    // From a mutation probe: a four-segment token was never tried (a reading that took 3 or more passed).
    [
      'four segments, the first two JSON objects',
      `${b64({ alg: 'EdDSA', typ: 'JWT' })}.${b64({ sub: 'x' })}.sig.more`,
    ],
  ])('refuses %s as invalid_jwt_format', async (_label, token) => {
    expect(await codec.verify(token)).toEqual({
      ok: false,
      reason: 'invalid_jwt_format',
      cause: 'not_a_jwt',
    });
  });

  it('refuses a truncated token', async () => {
    const token = await codec.sign(claims());
    const result = await codec.verify(token.slice(0, token.length - 10));
    expect(result).toMatchObject({ ok: false, reason: 'error_checking_session', cause: 'bad_signature' });
    expect((await codec.verify(token.split('.').slice(0, 2).join('.'))).ok).toBe(false);
  });

  it('refuses a tampered payload', async () => {
    const [h, , s] = (await codec.sign(claims())).split('.');
    const forged = `${h}.${b64(claims({ sub: 'bc=local;sc=x;id=devroot;sub=lhsrldbjsnlh' }))}.${s}`;
    expect(await codec.verify(forged)).toMatchObject({ ok: false, cause: 'bad_signature' });
  });

  it('refuses a tampered payload carrying the signature of a token it has verified and cached', async () => {
    const genuine = await codec.sign(claims({ jti: 'jti-genuine' }));
    expect((await codec.verify(genuine)).ok).toBe(true);
    const [h, , s] = genuine.split('.');
    const forged = `${h}.${b64(claims({ jti: 'jti-genuine', sub: 'bc=local;sc=x;id=devroot;sub=lhsrldbjsnlh' }))}.${s}`;
    expect(codec.verifyCached(forged)).toBeUndefined();
    expect(await codec.verify(forged)).toMatchObject({ ok: false, cause: 'bad_signature' });
    // A forged header with the same signature is not served from the cache either, and the genuine token still is.
    expect(
      codec.verifyCached(`${b64({ alg: 'none', typ: 'JWT' })}.${genuine.split('.')[1]}.${s}`),
    ).toBeUndefined();
    expect(codec.verifyCached(genuine)).toMatchObject({ ok: true, claims: { jti: 'jti-genuine' } });
  });

  it('refuses every other spelling of a genuine signature (unused bits of its last character set)', async () => {
    // Found by a hostile probe: jose ignores those bits, so each spelling verified and took a cache entry.
    const token = await codec.sign(claims({ jti: 'jti-spelling' }));
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const high = alphabet.indexOf(token.at(-1)!) & 0b110000; // 64 bytes: the last character carries 2 bits
    for (const low of [1, 2, 3, 7, 15]) {
      const spelling = token.slice(0, -1) + alphabet[high | low];
      expect(await codec.verify(spelling)).toMatchObject({ ok: false, cause: 'bad_signature' });
      expect(codec.verifyCached(spelling)).toBeUndefined();
    }
    expect(await codec.verify(token)).toMatchObject({ ok: true, claims: { jti: 'jti-spelling' } });
  });

  it('refuses a token signed by another key', async () => {
    const other = keyPair();
    const stranger = new EddsaJwtCodec({
      secretSeed: other.seed,
      publicKey: other.pub,
      issuer: ISSUER,
      audience: AUDIENCE,
      clock,
    });
    expect(await codec.verify(await stranger.sign(claims()))).toMatchObject({
      ok: false,
      cause: 'bad_signature',
    });
  });

  it('refuses alg none and HS256 keyed with the public key (algorithm confusion)', async () => {
    const payload = b64(claims());
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`;
    expect(await codec.verify(none)).toMatchObject({
      ok: false,
      reason: 'error_checking_session',
      cause: 'wrong_algorithm',
    });
    const head = b64({ alg: 'HS256', typ: 'JWT' });
    const mac = createHmac('sha256', Buffer.from(server.pub))
      .update(`${head}.${payload}`)
      .digest('base64url');
    expect(await codec.verify(`${head}.${payload}.${mac}`)).toMatchObject({
      ok: false,
      cause: 'wrong_algorithm',
    });
  });

  it('refuses the wrong audience, issuer and type', async () => {
    expect(await codec.verify(await codec.sign(claims({ aud: 'b'.repeat(64) })))).toMatchObject({
      ok: false,
      cause: 'wrong_audience',
    });
    expect(await codec.verify(await codec.sign(claims({ iss: 'https://evil.test' })))).toMatchObject({
      ok: false,
      cause: 'wrong_issuer',
    });
    const key = await importJWK(
      {
        kty: 'OKP',
        crv: 'Ed25519',
        x: Buffer.from(server.pub).toString('base64url'),
        d: Buffer.from(server.seed).toString('base64url'),
      },
      'EdDSA',
    );
    const otherType = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt' })
      .sign(key);
    expect(await codec.verify(otherType)).toMatchObject({ ok: false, cause: 'wrong_type' });
  });

  it('accepts a federated token only when the federated claim names this server', async () => {
    const federated = claims({
      iss: 'https://home.example.test',
      passport_subjectuniqueidentifier_url: ISSUER,
    });
    expect((await codec.verify(await codec.sign(federated))).ok).toBe(true);
    const elsewhere = claims({
      iss: 'https://home.example.test',
      passport_subjectuniqueidentifier_url: 'https://third.test',
    });
    expect(await codec.verify(await codec.sign(elsewhere))).toMatchObject({
      ok: false,
      cause: 'wrong_issuer',
    });
    const localButFlagged = claims({ passport_subjectuniqueidentifier_url: 'https://third.test' });
    expect(await codec.verify(await codec.sign(localButFlagged))).toMatchObject({
      ok: false,
      cause: 'wrong_issuer',
    });
  });

  it('refuses expired and not-yet-valid tokens, also once cached', async () => {
    const token = await codec.sign(claims());
    expect((await codec.verify(token)).ok).toBe(true);
    now += 3600 * 1000;
    expect(await codec.verify(token)).toMatchObject({ ok: false, cause: 'expired' });
    now = 1_800_000_000_000;
    const future = await codec.sign(claims({ nbf: iat() + 60, iat: iat() }));
    expect(await codec.verify(future)).toMatchObject({ ok: false, cause: 'not_yet_valid' });
  });

  // Found by a probe: an instance whose clock lagged across a second boundary refused a token another
  // instance had just minted (nbf = the issuer's second). nbf gets 5 s of leeway; exp none.
  it('takes a token whose nbf is up to 5 s ahead of its clock, and no expired token, verified or cached', async () => {
    const ahead = await codec.sign(claims({ jti: 'jti-ahead', nbf: iat() + 5, iat: iat() + 5 }));
    expect(await codec.verify(ahead)).toMatchObject({ ok: true });
    expect(codec.verifyCached(ahead)).toMatchObject({ ok: true });
    const tooFar = await codec.sign(claims({ jti: 'jti-far', nbf: iat() + 6, iat: iat() + 6 }));
    expect(await codec.verify(tooFar)).toMatchObject({ ok: false, cause: 'not_yet_valid' });
    const ending = await codec.sign(claims({ jti: 'jti-ending', exp: iat() + 1 }));
    expect((await codec.verify(ending)).ok).toBe(true);
    now += 1000; // exp reached: refused at once, by the signature check and by the cache
    expect(codec.verifyCached(ending)).toMatchObject({ ok: false, cause: 'expired' });
    const fresh = new EddsaJwtCodec({
      secretSeed: server.seed,
      publicKey: server.pub,
      issuer: ISSUER,
      audience: AUDIENCE,
      clock,
    });
    expect(await fresh.verify(ending)).toMatchObject({ ok: false, cause: 'expired' });
    expect(await fresh.verify(ending, { ignoreTimeWindow: true })).toMatchObject({ ok: true });
  });

  it('verifyCached answers only for tokens verified before, with the same time rules as verify', async () => {
    const token = await codec.sign(claims({ jti: 'jti-cached' }));
    expect(codec.verifyCached(token)).toBeUndefined();
    expect((await codec.verify(token)).ok).toBe(true);
    expect(codec.verifyCached(token)).toMatchObject({ ok: true, claims: { jti: 'jti-cached' } });
    now += 3600 * 1000;
    expect(codec.verifyCached(token)).toMatchObject({ ok: false, cause: 'expired' });
    expect(codec.verifyCached(token, { ignoreTimeWindow: true })).toMatchObject({ ok: true });
    const [h, p, sig] = token.split('.');
    // Another first character (a fixed suffix would be no change when the signature ends with it).
    expect(codec.verifyCached(`${h}.${p}.${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`)).toBeUndefined();
  });

  it('requires the core claims', async () => {
    const { jti: _jti, ...withoutJti } = claims();
    expect(await codec.verify(await codec.sign(withoutJti))).toMatchObject({
      ok: false,
      cause: 'invalid_claims',
    });
  });

  // From a mutation probe: each of these rules could be dropped with every test passing.
  it('requires exp, iat, iss and aud too: a token signed without one is refused, never one that lives forever', async () => {
    for (const claim of ['exp', 'iat', 'iss', 'aud'] as const) {
      const { [claim]: _dropped, ...without } = claims({ jti: `jti-without-${claim}` });
      expect(await codec.verify(await codec.sign(without))).toMatchObject({ ok: false });
    }
    const { exp: _exp, ...withoutExp } = claims({ jti: 'jti-no-exp' });
    expect(await codec.verify(await codec.sign(withoutExp))).toMatchObject({
      ok: false,
      cause: 'invalid_claims',
    });
  });

  it('a federated token names its home API by an http(s) URL: any other iss is wrong_issuer', async () => {
    for (const iss of ['home.example.test', 'ftp://home.example.test', 'javascript:alert(1)', '']) {
      const federated = claims({ iss, passport_subjectuniqueidentifier_url: ISSUER, jti: `jti-${iss}` });
      expect(await codec.verify(await codec.sign(federated))).toMatchObject({
        ok: false,
        cause: 'wrong_issuer',
      });
    }
  });

  it('a cached token is refused once its nbf is more than 5 s ahead of a clock set back, as verify refuses it', async () => {
    const token = await codec.sign(claims({ jti: 'jti-set-back' }));
    expect((await codec.verify(token)).ok).toBe(true);
    now -= 5000; // nbf 5 s ahead: within the leeway
    expect(codec.verifyCached(token)).toMatchObject({ ok: true });
    now -= 1000; // 6 s ahead
    expect(codec.verifyCached(token)).toMatchObject({ ok: false, cause: 'not_yet_valid' });
  });
});
