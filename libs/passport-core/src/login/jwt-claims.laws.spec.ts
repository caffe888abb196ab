/**
 * Property laws of the JWT claims (docs/protocol.md §3): the time bounds of buildJwtClaims for any login
 * instant, session TTL, jwt_duration and not_after; tokenIdFromSubject inverts the sub claim for any
 * serviceprovider id; positiveIntegerClaim against a BigInt reading of the decimal.
 */
import fc from 'fast-check';
import { type PassportRecord } from '../passport/passport.types.js';
import { createNobleSigner } from '../crypto/noble.signer.js';
import {
  buildJwtClaims,
  JWT_DEFAULT_LIFETIME_SECONDS,
  positiveIntegerClaim,
  tokenIdFromSubject,
} from './jwt-claims.js';

const server = {
  serviceProviderId: 'bc=local;sc=passport.test;id=devroot',
  tokenId: 'bhahbkbramax',
  ownerId: 'server.test',
  publicBaseUrl: 'https://api.example',
  signer: createNobleSigner(new Uint8Array(32).fill(5)),
};
const local = { federated: false, homeUrl: null } as const;

describe('JWT claim laws', () => {
  it('bounds: nbf = iat = session_iat ≤ exp ≤ session_exp, exp ≤ iat + 3600 and iat + jwt_duration, session_exp ≤ iat + ttl and not_after', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 946684800000, max: 4102444800000 }), // not_after on 1970-01-01 means unbounded
        fc.option(fc.integer({ min: 1, max: 100_000 }), { nil: undefined }),
        fc.option(
          fc.oneof(
            fc.integer({ min: 1, max: 10_000 }).map(String),
            fc.constantFrom('0', '-5', 'x', ' 60 ', '1e3'),
          ),
          { nil: undefined },
        ),
        fc.integer({ min: 1, max: 200_000 }),
        (nowMs, ttl, jwtDuration, notAfterAheadS) => {
          const iat = Math.floor(nowMs / 1000);
          const notAfter = new Date((iat + notAfterAheadS) * 1000).toISOString();
          const passport: PassportRecord = {
            tokenId: 'chbvcnurbkuw',
            ownerId: 'ab'.repeat(32),
            contractId: 'passport.test',
            revoked: false,
            metadata: {
              not_after: notAfter,
              ...(jwtDuration === undefined ? {} : { jwt_duration: jwtDuration }),
            },
          };
          const { claims, expiresAtMs, sessionExpiresAtMs } = buildJwtClaims({
            server,
            passport,
            federation: local,
            nowMs,
            sessionTtlSeconds: ttl,
            random: (n) => new Uint8Array(n),
          });
          expect([claims.iat, claims.nbf, claims.session_iat]).toEqual([iat, iat, iat]);
          expect(claims.exp).toBeGreaterThan(iat);
          expect(claims.exp).toBeLessThanOrEqual(claims.session_exp);
          expect(claims.exp).toBeLessThanOrEqual(iat + JWT_DEFAULT_LIFETIME_SECONDS);
          const d = positiveIntegerClaim(jwtDuration);
          if (d !== null) expect(claims.exp).toBeLessThanOrEqual(iat + d);
          expect(claims.session_exp).toBeLessThanOrEqual(iat + (ttl ?? 5200));
          expect(claims.session_exp).toBeLessThanOrEqual(iat + notAfterAheadS);
          expect([expiresAtMs, sessionExpiresAtMs]).toEqual([claims.exp * 1000, claims.session_exp * 1000]);
          expect(tokenIdFromSubject(claims.sub)).toBe('chbvcnurbkuw');
        },
      ),
      { numRuns: 500 },
    );
  });

  it('round trip: tokenIdFromSubject reads the token id back from `<any serviceprovider id>;sub=<tokenId>`', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.stringMatching(/^[a-z]{12}$/),
        (sp, tokenId) => {
          expect(tokenIdFromSubject(`${sp};sub=${tokenId}`)).toBe(tokenId);
        },
      ),
    );
  });

  it('oracle: positiveIntegerClaim is the value of a trimmed ASCII decimal or safe integer, when positive and safe', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: fc.constantFrom(...'0123456789 +-.e\u0660\u00a0'), maxLength: 20 }),
          fc.bigInt({ min: 0n, max: 2n ** 60n }).map(String),
          fc.double(),
          fc.integer(),
          fc.constantFrom(null, undefined, true, [], {}),
        ),
        (value) => {
          let want: number | null = null;
          if (typeof value === 'number') want = Number.isSafeInteger(value) && value > 0 ? value : null;
          else if (typeof value === 'string' && /^[0-9]+$/.test(value.trim())) {
            const big = BigInt(value.trim());
            want = big > 0n && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : null;
          }
          expect(positiveIntegerClaim(value)).toBe(want);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
