import fc from 'fast-check';
import { type PassportRecord } from '../passport/passport.types.js';
import { createNobleSigner } from '../crypto/noble.signer.js';
import { createNobleVerifier } from '../crypto/noble.verifier.js';
import { decodeBase64Url } from '../codecs/base64url.codec.js';
import {
  buildJwtClaims,
  passportIdSignatureMessage,
  positiveIntegerClaim,
  tokenIdFromSubject,
} from './jwt-claims.js';
import { ULID_PATTERN, ulid, ulidTimeMs } from './ulid.js';

const server = {
  serviceProviderId: 'bc=local;sc=passport.test;id=devroot',
  tokenId: 'bhahbkbramax',
  ownerId: 'server.test',
  publicBaseUrl: 'https://api.example',
  signer: createNobleSigner(new Uint8Array(32).fill(5)),
};
const passport: PassportRecord = {
  tokenId: 'chbvcnurbkuw',
  ownerId: 'ab'.repeat(32),
  contractId: 'passport.test',
  revoked: false,
  metadata: {},
};
const NOW = Date.parse('2026-03-01T12:00:00.400Z');
const IAT = Math.floor(NOW / 1000);
const zeros = (n: number) => new Uint8Array(n);
const local = { federated: false, homeUrl: null } as const;

const ALL_CLAIMS = [
  'iss',
  'sub',
  'aud',
  'iat',
  'nbf',
  'exp',
  'jti',
  'session_id',
  'session_iat',
  'session_exp',
  'session_status',
  'passport_id',
  'passport_idsignature',
  'passport_owner',
  'passport_maxrequests',
  'passport_maxrqwindow',
  'passport_permissionedroutes',
  'passport_webhookurl',
  'passport_webhookcidr',
  'passport_allowedcidr',
  'passport_allowediso3166list',
  'passport_subjectuniqueidentifier_url',
  'config_iso639',
  'config_iso3166',
  'config_iso15924',
  'config_timeoptions',
];

describe('JWT claims', () => {
  it('a bare passport: every claim present, unset ones null, 3600 s lifetime', () => {
    const { claims, sessionId, jti, expiresAtMs, sessionExpiresAtMs } = buildJwtClaims({
      server,
      passport,
      federation: local,
      nowMs: NOW,
      random: zeros,
    });
    expect(Object.keys(claims).sort()).toEqual([...ALL_CLAIMS].sort());
    expect(claims).toEqual({
      iss: 'https://api.example',
      sub: 'bc=local;sc=passport.test;id=devroot;sub=chbvcnurbkuw',
      aud: 'server.test',
      iat: IAT,
      nbf: IAT,
      exp: IAT + 3600,
      jti,
      session_id: sessionId,
      session_iat: IAT,
      session_exp: IAT + 5200,
      session_status: 'new',
      passport_id: 'bhahbkbramax',
      passport_idsignature: claims.passport_idsignature,
      // The server passport's owner, as production's rodit_owner (rodit-auth-be tokenservice.js).
      passport_owner: 'server.test',
      passport_maxrequests: null,
      passport_maxrqwindow: null,
      passport_permissionedroutes: null,
      passport_webhookurl: null,
      passport_webhookcidr: null,
      passport_allowedcidr: null,
      passport_allowediso3166list: null,
      passport_subjectuniqueidentifier_url: null,
      config_iso639: null,
      config_iso3166: null,
      config_iso15924: null,
      config_timeoptions: null,
    });
    expect(expiresAtMs).toBe((IAT + 3600) * 1000);
    expect(sessionExpiresAtMs).toBe((IAT + 5200) * 1000);
    const signature = decodeBase64Url(claims.passport_idsignature)!;
    expect(
      createNobleVerifier().verify(
        signature,
        passportIdSignatureMessage('bhahbkbramax', IAT),
        server.signer.publicKey,
      ),
    ).toBe(true);
    expect(new TextDecoder().decode(passportIdSignatureMessage('bhahbkbramax', IAT))).toBe(
      'bhahbkbramax2026-03-01T12:00:00.000Z',
    );
    // Time part cross-checked with the ulid package's encodeTime.
    expect(jti).toBe('jti01KJMMA2WG0000000000000000');
    expect(sessionId).toBe('sess_chbvcnurbkuw_01KJMMA2WG0000000000000000');
  });
  it('carries the passport limits, privileges, webhook and address rules as the chain holds them (production copies the metadata strings)', () => {
    const metadata = {
      max_requests: '48',
      maxrq_window: '60',
      permissioned_routes: '{"entities":{"methods":{}}}',
      webhook_url: 'https://a.example',
      webhook_cidr: '10.0.0.0/8',
      allowed_cidr: '0.0.0.0/0',
      allowed_iso3166list: '{"allow":["ES"]}',
    };
    const { claims } = buildJwtClaims({
      server,
      passport: { ...passport, metadata },
      federation: local,
      nowMs: NOW,
    });
    expect(claims).toMatchObject({
      passport_maxrequests: '48',
      passport_maxrqwindow: '60',
      passport_permissionedroutes: metadata.permissioned_routes,
      passport_webhookurl: 'https://a.example',
      passport_webhookcidr: '10.0.0.0/8',
      passport_allowedcidr: '0.0.0.0/0',
      passport_allowediso3166list: '{"allow":["ES"]}',
    });
    const odd = buildJwtClaims({
      server,
      passport: { ...passport, metadata: { max_requests: '4.5', maxrq_window: '-1', webhook_url: ' ' } },
      federation: local,
      nowMs: NOW,
    });
    // Copied as written; the rate limit reads only positive integers (positiveIntegerClaim).
    expect(odd.claims).toMatchObject({
      passport_maxrequests: '4.5',
      passport_maxrqwindow: '-1',
      passport_webhookurl: null,
    });
    expect(positiveIntegerClaim(odd.claims.passport_maxrequests)).toBeNull();
    expect(positiveIntegerClaim(odd.claims.passport_maxrqwindow)).toBeNull();
    expect(positiveIntegerClaim(claims.passport_maxrequests)).toBe(48);
    // A token minted before the claims carried strings still limits its holder.
    expect(positiveIntegerClaim(48)).toBe(48);
    expect(positiveIntegerClaim(0)).toBeNull();
    expect(positiveIntegerClaim('0')).toBeNull();
  });
  const TEN_PAST = Date.parse('2026-03-01T12:10:00Z') / 1000;
  it.each([
    ['jwt_duration shortens it', { jwt_duration: '600' }, IAT + 600, IAT + 5200],
    ['jwt_duration cannot lengthen it', { jwt_duration: '7200' }, IAT + 3600, IAT + 5200],
    ['a malformed jwt_duration is ignored', { jwt_duration: '10m' }, IAT + 3600, IAT + 5200],
    ['not_after caps both', { not_after: '2026-03-01T12:10:00Z' }, TEN_PAST, TEN_PAST],
    ['the smaller cap wins', { jwt_duration: '60', not_after: '2026-03-01T12:10:00Z' }, IAT + 60, TEN_PAST],
    ['an unbounded not_after does not', { not_after: '0' }, IAT + 3600, IAT + 5200],
    // A mutation probe: session_exp = ceil(not_after) passed, a session past its passport's end.
    [
      'not_after inside a second caps at that second, never after it',
      { not_after: String(TEN_PAST * 1000 + 500) },
      TEN_PAST,
      TEN_PAST,
    ],
  ])('exp and session_exp: %s', (_name, metadata, exp, sessionExp) => {
    const { claims } = buildJwtClaims({
      server,
      passport: { ...passport, metadata },
      federation: local,
      nowMs: NOW,
    });
    expect(claims.exp).toBe(exp);
    expect(claims.session_exp).toBe(sessionExp);
  });
  it('a session TTL shorter than the token lifetime caps exp too', () => {
    const { claims } = buildJwtClaims({
      server,
      passport,
      federation: local,
      nowMs: NOW,
      sessionTtlSeconds: 900,
    });
    expect(claims).toMatchObject({ iat: IAT, exp: IAT + 900, session_iat: IAT, session_exp: IAT + 900 });
    expect(() =>
      buildJwtClaims({ server, passport, federation: local, nowMs: NOW, sessionTtlSeconds: 0 }),
    ).toThrow(RangeError);
  });
  it('federated: iss is the home URL, the federated claim is this server', () => {
    const { claims } = buildJwtClaims({
      server,
      passport,
      federation: { federated: true, homeUrl: 'https://sister.example' },
      nowMs: NOW,
    });
    expect(claims.iss).toBe('https://sister.example');
    expect(claims.passport_subjectuniqueidentifier_url).toBe('https://api.example');
  });
  it('ids are unique per login', () => {
    const a = buildJwtClaims({ server, passport, federation: local, nowMs: NOW });
    const b = buildJwtClaims({ server, passport, federation: local, nowMs: NOW });
    expect(a.jti).not.toBe(b.jti);
    expect(a.sessionId).not.toBe(b.sessionId);
    expect(a.sessionId).toMatch(/^sess_chbvcnurbkuw_[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
  });
});

describe('sub → tokenId', () => {
  it('reads the last ;sub= segment', () => {
    expect(tokenIdFromSubject('bc=local;sc=passport.test;id=devroot;sub=chbvcnurbkuw')).toBe('chbvcnurbkuw');
    expect(tokenIdFromSubject('sub=chbvcnurbkuw')).toBe('chbvcnurbkuw');
  });
  // From a mutation probe: indexOf for lastIndexOf passed, no case above holding two markers.
  it('with two ;sub= markers, the last one names the holder', () => {
    expect(tokenIdFromSubject('bc=x;sub=bjbvcjzqbdsj;sub=chbvcnurbkuw')).toBe('chbvcnurbkuw');
    expect(tokenIdFromSubject('sub=bjbvcjzqbdsj;sub=chbvcnurbkuw')).toBe('chbvcnurbkuw');
  });
  it.each([
    undefined,
    null,
    5,
    '',
    'chbvcnurbkuw',
    'bc=x;sub=',
    'bc=x;sub=CHBVCNURBKUW',
    'bc=x;sub=chbvcnurbkuw;id=y',
    'bc=x;sub=chbvcnurbkuwx',
  ])('rejects %j', (sub) => {
    expect(tokenIdFromSubject(sub)).toBeNull();
  });
  it('inverts buildJwtClaims (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{12}$/), (tokenId) => {
        const { claims } = buildJwtClaims({
          server,
          passport: { ...passport, tokenId },
          federation: local,
          nowMs: NOW,
        });
        return tokenIdFromSubject(claims.sub) === tokenId;
      }),
    );
  });
});

describe('ULID', () => {
  it('encodes the spec example time and the randomness', () => {
    // ulid/spec: 1469918176385 → 01ARYZ6S41
    expect(ulid(1469918176385, zeros).slice(0, 10)).toBe('01ARYZ6S41');
    expect(ulid(0, (n) => new Uint8Array(n).fill(0xff))).toBe('0000000000ZZZZZZZZZZZZZZZZ');
    expect(ulid(2 ** 48 - 1, zeros)).toBe('7ZZZZZZZZZ0000000000000000');
    expect(() => ulid(2 ** 48, zeros)).toThrow(RangeError);
    expect(() => ulid(-1, zeros)).toThrow(RangeError);
  });
  it('round-trips its time and sorts by time (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 48 - 1 }),
        fc.integer({ min: 0, max: 2 ** 48 - 1 }),
        (a, b) => {
          const ua = ulid(a);
          const ub = ulid(b);
          expect(ua).toMatch(ULID_PATTERN);
          expect(ulidTimeMs(ua)).toBe(a);
          if (a < b) expect(ua < ub).toBe(true);
        },
      ),
    );
    expect(ulidTimeMs('not-a-ulid')).toBeNull();
  });
});

// Found by a hostile-NEAR-node probe: a record whose id was `zz;sub=<another passport>` went into `sub`,
// which tokenIdFromSubject then read as the other passport.
describe('buildJwtClaims refuses a record whose id is no token id', () => {
  it.each(['zz;sub=chbvcnurbkuw', 'ABCDEFGHIJKL', 'abcdefghijk\u0000', 'a'.repeat(13)])('%j', (tokenId) => {
    expect(() =>
      buildJwtClaims({ server, passport: { ...passport, tokenId }, federation: local, nowMs: NOW }),
    ).toThrow(RangeError);
  });
});
