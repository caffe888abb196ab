/**
 * The login's token-size bound (core `sessionTokenBytes`, `loginTokenBytes`) against tokens this app
 * really signs: the size is exact for the renewed token (the session's longest), the login's token is
 * no longer, and the keyless estimate `passport mint` uses equals the server's.
 */
import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { createNodeSigner } from '@passport/core/node';
import {
  buildJwtClaims,
  loginTokenBytes,
  renewTokenClaims,
  sessionTokenBytes,
  terminationTokenClaims,
} from '@passport/core/login';
import { EddsaJwtCodec } from './eddsa-jwt.codec.js';

const seedOf = () =>
  new Uint8Array(
    generateKeyPairSync('ed25519').privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32),
  );

describe('the size of a session’s tokens', () => {
  const seed = seedOf();
  const signer = createNodeSigner(seed);
  const server = {
    serviceProviderId: 'bc=local;sc=passport.local;id=devroot',
    tokenId: 'bjbvcjzqbdsj',
    ownerId: 'e'.repeat(64),
    publicBaseUrl: 'https://api.example.test',
  };
  let now = 1_800_000_000_000;
  const codec = new EddsaJwtCodec({
    secretSeed: seed,
    publicKey: signer.publicKey,
    issuer: server.publicBaseUrl,
    audience: server.ownerId,
    clock: { nowMs: () => now },
  });
  // Metadata copied into the claims, with text JSON escapes lengthen (quotes, controls, non-ASCII).
  const copiedText = fc.option(fc.string({ unit: 'binary', maxLength: 300 }), { nil: undefined });
  const metadata = fc.record(
    {
      permissioned_routes: copiedText,
      webhook_url: copiedText,
      allowed_cidr: copiedText,
      allowed_iso3166list: copiedText,
      max_requests: copiedText,
    },
    { requiredKeys: [] },
  );

  it('is exact for the renewed token, and the login’s and the logout’s tokens are no longer', async () => {
    await fc.assert(
      fc.asyncProperty(metadata, async (fields) => {
        now = 1_800_000_000_000;
        const passport = {
          tokenId: 'chbvcnurbkuw',
          ownerId: 'alice.near',
          contractId: 'passport.local',
          revoked: false,
          metadata: Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)),
        };
        const built = buildJwtClaims({
          server: { ...server, signer },
          passport,
          federation: { federated: false, homeUrl: null },
          nowMs: now,
        });
        const bytes = sessionTokenBytes(built.claims);
        const login = await codec.sign({ ...built.claims });
        expect(Buffer.byteLength(login)).toBeLessThanOrEqual(bytes);
        // Renewed when due (the last fifth of the token's hour).
        const renewed = renewTokenClaims({
          claims: { ...built.claims },
          nowMs: now + 3000 * 1000,
          passportNotAfterMs: null,
          signer,
        });
        expect(renewed).not.toBeNull();
        expect(Buffer.byteLength(await codec.sign(renewed!.claims))).toBe(bytes);
        const closed = terminationTokenClaims({ claims: { ...built.claims }, nowMs: now + 10_000, signer });
        expect(Buffer.byteLength(await codec.sign(closed))).toBeLessThanOrEqual(bytes);
        // The keyless estimate of `passport mint` reads the same size.
        expect(loginTokenBytes({ passport, server, nowMs: now })).toBe(bytes);
      }),
      { numRuns: 150 },
    );
  });
});
