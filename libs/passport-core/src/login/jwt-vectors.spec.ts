/**
 * The library against test-vectors/jwt.json, which node:crypto computed without the library: the
 * issuer's `passport_idsignature` (the same bytes, and `checkServerPassport` accepts or refuses each
 * token as the vector says) and the renewal decision and lifetime.
 */
import jwtVectors from '../../test-vectors/jwt.json' with { type: 'json' };
import { MemoryChainReader } from '../memory/memory-chain.reader.js';
import { decodeBase64Url } from '../codecs/base64url.codec.js';
import { decodeHex } from '../codecs/hex.codec.js';
import { utf8 } from '../codecs/utf8.codec.js';
import { createNobleSigner } from '../crypto/noble.signer.js';
import { createNobleVerifier } from '../crypto/noble.verifier.js';
import { checkServerPassport } from '../federation/federated-token.checks.js';
import { signFamilyMetadata } from '../family/family-signature.js';
import { type PassportRecord } from '../passport/passport.types.js';
import { passportIdSignatureMessage, signPassportId } from './jwt-claims.js';
import { isRenewalDue, renewTokenClaims } from './jwt-renewal.js';

const CONTRACT = 'passport.test';
const FAMILY = `bc=local;sc=${CONTRACT};id=devroot`;
const root = createNobleSigner(new Uint8Array(32).fill(1));
const serverSigner = createNobleSigner(decodeHex(jwtVectors.serverSeedHex)!);
const verifier = createNobleVerifier();

function serverPassport(): PassportRecord {
  // Minted the issuer's way: the token id is signed from the record, not carried in the metadata.
  const metadata = { serviceprovider_id: FAMILY, subjectuniqueidentifier_url: 'https://api.example' };
  return {
    tokenId: jwtVectors.serverTokenId,
    ownerId: jwtVectors.serverOwner,
    contractId: CONTRACT,
    revoked: false,
    metadata: {
      ...metadata,
      serviceprovider_signature: signFamilyMetadata(metadata, jwtVectors.serverTokenId, root),
    },
  };
}

const chain = new MemoryChainReader({
  contractId: CONTRACT,
  chainTime: Date.parse('2026-06-01'),
  passports: [
    {
      tokenId: FAMILY,
      ownerId: Buffer.from(root.publicKey).toString('hex'),
      contractId: CONTRACT,
      metadata: {},
      revoked: false,
    },
    serverPassport(),
  ],
});

const decodeSegment = (segment: string) =>
  JSON.parse(new TextDecoder().decode(decodeBase64Url(segment)!)) as Record<string, unknown>;

describe('issuer-style JWT vectors (computed without the library)', () => {
  it('the vector key is the server key the library derives from the seed', () => {
    expect(Buffer.from(serverSigner.publicKey).toString('hex')).toBe(jwtVectors.serverPublicKeyHex);
  });

  it.each(jwtVectors.tokens.map((t) => [t.note, t] as const))('%s', async (_note, vector) => {
    const [h, p, s] = vector.jwt.split('.');
    // The compact JWS verifies with the server key, and decodes to the vector's claims.
    expect(verifier.verify(decodeBase64Url(s)!, utf8(`${h}.${p}`), serverSigner.publicKey)).toBe(true);
    const header = decodeSegment(h);
    const claims = decodeSegment(p);
    expect(claims).toEqual(vector.claims);
    expect(
      new TextDecoder().decode(passportIdSignatureMessage(jwtVectors.serverTokenId, claims.iat as number)),
    ).toBe(vector.idSignatureMessage);
    if (vector.expect === 'OK') {
      // Ed25519 is deterministic: the library signs the same bytes to the same signature.
      expect(signPassportId(serverSigner, jwtVectors.serverTokenId, claims.iat as number)).toBe(
        claims.passport_idsignature,
      );
    }
    const check = checkServerPassport({
      chain,
      verifier,
      token: { header, claims },
      serverPassport: serverPassport(),
      verifiedWithKey: serverSigner.publicKey,
      expectedServiceProviderId: FAMILY,
      trustedContracts: [CONTRACT],
    });
    const expected = vector.expect;
    if (typeof expected === 'string') await expect(check).resolves.toBeUndefined();
    else
      await expect(check).rejects.toMatchObject({
        code: expected.code,
        details: { reason: expected.reason },
      });
  });

  it.each(jwtVectors.renewals.map((r) => [r.note, r] as const))('renewal: %s', (_note, r) => {
    const claims = {
      iat: r.iat,
      exp: r.exp,
      session_exp: r.session_exp,
      passport_id: jwtVectors.serverTokenId,
      jti: 'old',
    };
    const nowMs = r.now * 1000 + 999; // any millisecond of that second decides alike
    expect(isRenewalDue(claims, nowMs)).toBe(r.due);
    const renewed = renewTokenClaims({
      claims,
      nowMs,
      passportNotAfterMs: r.not_after === null ? null : r.not_after * 1000,
      signer: serverSigner,
    });
    expect(renewed?.claims.exp ?? null).toBe(r.renewedExp);
    if (renewed) {
      expect(renewed.claims).toMatchObject({
        iat: r.now,
        session_exp: r.session_exp,
        session_status: 'renewed_light_verification',
      });
      expect(renewed.claims.jti).not.toBe('old');
      expect(renewed.claims.passport_idsignature).toBe(
        signPassportId(serverSigner, jwtVectors.serverTokenId, r.now),
      );
    }
  });
});

// Found by a review: tokens minted before the production claims were added kept lacking them through
// renewals, where unset claims must be present as null.
describe('renewing a token minted before the allowed* and config_* claims', () => {
  it('adds them as null and keeps every claim the old token had', () => {
    const signer = createNobleSigner(new Uint8Array(32).fill(8));
    const old = {
      iss: 'https://api.example',
      iat: 1_000,
      exp: 1_000 + 3600,
      session_exp: 1_000 + 5200,
      passport_id: 'bhahbkbramax',
      passport_maxrequests: 48,
    };
    const renewed = renewTokenClaims({
      claims: old,
      nowMs: (1_000 + 3000) * 1000,
      passportNotAfterMs: null,
      signer,
    })!;
    expect(renewed.claims).toMatchObject({
      iss: 'https://api.example',
      passport_maxrequests: 48,
      passport_allowedcidr: null,
      passport_allowediso3166list: null,
      config_iso639: null,
      config_iso3166: null,
      config_iso15924: null,
      config_timeoptions: null,
    });
    expect(renewed.jti).toMatch(/^jti[0-9A-HJKMNP-TV-Z]{26}$/);
    // A token that has them keeps its own values.
    const current = renewTokenClaims({
      claims: { ...old, passport_allowedcidr: '10.0.0.0/8' },
      nowMs: (1_000 + 3000) * 1000,
      passportNotAfterMs: null,
      signer,
    })!;
    expect(current.claims.passport_allowedcidr).toBe('10.0.0.0/8');
  });
});
