/**
 * The Authorization header's reading: a header that starts `Bearer ` is looked up in the codec's cache
 * before the RegExp runs. Whatever the header, the answer must be the one the RegExp alone gives.
 */
import fc from 'fast-check';
import { CachingChainReader } from '@passport/adapters/caching';
import { PassportError } from '@passport/core';
import { MemoryChainReader, MemorySessionStore } from '@passport/core/testing';
import { ServerPassportCheck } from '../platform/chain/server-passport.check.js';
import { BearerAuthenticator } from './bearer.authenticator.js';
import { freshJwtCodec, openSessionBearer } from './testing/session-fixtures.js';

const BEARER = /^Bearer +(\S+)\s*$/i;
const ISSUER = 'http://127.0.0.1:1';
const TOKEN_ID = 'abcdefghijkl';
const SERVER_TOKEN_ID = 'lkjihgfedcba';

/** An authenticator on a memory session store and chain, its clock frozen at `nowMs`. */
function world(nowMs: number) {
  const clock = { nowMs: () => nowMs };
  const codec = freshJwtCodec({ issuer: ISSUER, audience: 'owner.near', clock });
  const sessions = new MemorySessionStore();
  const chain = new CachingChainReader(
    new MemoryChainReader({
      contractId: 'c',
      passports: [
        { tokenId: TOKEN_ID, ownerId: 'o', contractId: 'c', metadata: {}, revoked: false },
        { tokenId: SERVER_TOKEN_ID, ownerId: 'owner.near', contractId: 'c', metadata: {}, revoked: false },
      ],
    }),
    // The frozen clock: the cached passport stays fresh however long the property test runs (on a busy
    // machine it outlasted the 5 s of the system clock, and the synchronous read became a promise).
    { clock },
  );
  const serverPassport = new ServerPassportCheck({ tokenId: SERVER_TOKEN_ID, ownerId: 'owner.near' }, chain);
  const authenticator = new BearerAuthenticator(codec, sessions, clock, chain, serverPassport);
  return { codec, sessions, chain, serverPassport, authenticator };
}

describe('BearerAuthenticator: the Authorization header', () => {
  const nowMs = Date.now();
  const { codec, sessions, authenticator } = world(nowMs);
  let jwt = '';

  beforeAll(async () => {
    const header = await openSessionBearer(codec, sessions, {
      sessionId: `sess_${TOKEN_ID}_01JABCDEFGHJKMNPQRSTVWXYZ0`,
      tokenId: TOKEN_ID,
      ownerId: 'o',
      issuer: ISSUER,
      audience: 'owner.near',
      nowMs,
    });
    jwt = header.slice('Bearer '.length);
    // Verified once, so the codec's cache holds it.
    expect((await authenticator.authenticate(`Bearer ${jwt}`)).tokenId).toBe(TOKEN_ID);
  });

  const outcome = async (header: string): Promise<string> => {
    try {
      const context = await authenticator.authenticateSync(header);
      return `ok ${context.tokenId}`;
    } catch (err) {
      if (!(err instanceof PassportError)) throw err;
      return `${err.code} ${JSON.stringify(err.details)}`;
    }
  };

  // Every character JavaScript's \s matches, and a few that look alike but are not whitespace.
  const whitespace = [
    ' ',
    '\t',
    '\n',
    '\v',
    '\f',
    '\r',
    '\u00a0',
    '\u1680',
    '\u2000',
    '\u200a',
    '\u2028',
    '\u2029',
    '\u202f',
    '\u205f',
    '\u3000',
    '\ufeff',
  ];
  const nearWhitespace = ['\u0000', '\u0085', '\u200b', '\u180e', 'x', '.'];
  const piece = fc.constantFrom(...whitespace, ...nearWhitespace);
  const scheme = fc.constantFrom('Bearer', 'bearer', 'BEARER', 'BeArEr', 'Bearer:', 'Bearerx', 'Basic', '');

  it('answers every header as the RegExp reading does, the cached token included', async () => {
    await fc.assert(
      fc.asyncProperty(
        scheme,
        fc.array(piece, { maxLength: 3 }),
        fc.integer({ min: 0, max: jwt.length }),
        fc.array(piece, { maxLength: 2 }),
        fc.array(piece, { maxLength: 3 }),
        async (name, gap, cut, inside, trailing) => {
          const token = jwt.slice(0, cut) + inside.join('') + jwt.slice(cut);
          const header = `${name}${gap.join('')}${token}${trailing.join('')}`;
          if (header === '') return;
          const match = BEARER.exec(header);
          const got = await outcome(header);
          if (match === null) {
            expect(got).toBe('INVALIDATED_TOKEN {"reason":"invalid_jwt_format","cause":"not_bearer_scheme"}');
          } else if (match[1] === jwt) {
            expect(got).toBe(`ok ${TOKEN_ID}`);
          } else {
            expect(got).not.toBe(`ok ${TOKEN_ID}`);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('reads the usual header, a one-space `Bearer ` and a cached token, without a promise', () => {
    const context = authenticator.authenticateSync(`Bearer ${jwt}`);
    expect(context).not.toBeInstanceOf(Promise);
    expect((context as { tokenId: string }).tokenId).toBe(TOKEN_ID);
  });

  it('still reads the other spellings the RegExp accepts', async () => {
    for (const header of [`bearer ${jwt}`, `Bearer   ${jwt}`, `BEARER ${jwt} \t`, `Bearer ${jwt}\u00a0`]) {
      expect(await outcome(header)).toBe(`ok ${TOKEN_ID}`);
    }
  });

  // A mutation probe: the RegExp unanchored at its start passed every test above.
  it('the scheme starts the header: `Bearer` after other text is not_bearer_scheme', async () => {
    for (const header of [
      `xBearer ${jwt}`,
      `Basic Bearer ${jwt}`,
      ` Bearer ${jwt}`,
      `Token, Bearer ${jwt}`,
    ]) {
      expect(await outcome(header)).toBe(
        'INVALIDATED_TOKEN {"reason":"invalid_jwt_format","cause":"not_bearer_scheme"}',
      );
    }
  });
});

// From a mutation probe: a token the server minted always matches its session, so each of these checks
// could be dropped unseen. They stop a token signed with the server key that names a session it was
// not issued with (a key leak, or a bug in whatever signs).
describe('BearerAuthenticator: a validly signed token that disagrees with its session', () => {
  const nowMs = Date.now();
  const now = Math.floor(nowMs / 1000);
  const { codec, sessions, chain, serverPassport, authenticator } = world(nowMs);
  const sessionId = `sess_${TOKEN_ID}_01JABCDEFGHJKMNPQRSTVWXYZ1`;
  const claims = {
    iss: ISSUER,
    sub: `sub=${TOKEN_ID}`,
    aud: 'owner.near',
    exp: now + 3000,
    iat: now,
    nbf: now,
    jti: 'j',
    session_id: sessionId,
    session_exp: now + 3600,
  };

  beforeAll(async () => {
    await openSessionBearer(codec, sessions, {
      sessionId,
      tokenId: TOKEN_ID,
      ownerId: 'o',
      issuer: ISSUER,
      audience: 'owner.near',
      nowMs,
    });
  });

  const causeOf = async (token: string): Promise<string> => {
    try {
      const context = await authenticator.authenticate(`Bearer ${token}`);
      return `ok ${context.tokenId}`;
    } catch (error) {
      if (!(error instanceof PassportError)) throw error;
      return `${error.code} ${(error.details as { cause?: string }).cause}`;
    }
  };

  // Only logout meets this bound: every other route refuses the token first, its exp being before the
  // session's end (a mutation probe: a session still open at its expiry instant passed).
  it('logout with the token of a session at its expiry instant: session_expired; a millisecond before, accepted', async () => {
    const token = await codec.sign(claims);
    const atMs = (ms: number) =>
      new BearerAuthenticator(codec, sessions, { nowMs: () => ms }, chain, serverPassport).authenticate(
        `Bearer ${token}`,
        { forLogout: true },
      );
    await expect(atMs((now + 3600) * 1000)).rejects.toMatchObject({
      code: 'INVALIDATED_TOKEN',
      details: { cause: 'session_expired' },
    });
    await expect(atMs((now + 3600) * 1000 - 1)).resolves.toMatchObject({ tokenId: TOKEN_ID });
  });

  it('the session as issued is accepted', async () => {
    expect(await causeOf(await codec.sign(claims))).toBe(`ok ${TOKEN_ID}`);
  });
  it.each([
    ['another session_exp', { session_exp: now + 3601 }],
    ['a subject naming another passport', { sub: `sub=${SERVER_TOKEN_ID}` }],
    [
      'a federated shape on a local session',
      { iss: 'https://home.example', passport_subjectuniqueidentifier_url: ISSUER },
    ],
  ])('%s is session_mismatch', async (_name, change) => {
    expect(await causeOf(await codec.sign({ ...claims, ...change }))).toBe(
      'INVALIDATED_TOKEN session_mismatch',
    );
  });
});

// A mutation probe: the JWT tier's not-live verdict dropped passed every test (login bounds the session
// by not_after, so only a passport whose bounds change on chain after login, or whose chain time runs
// ahead of this clock, meets it).
describe('BearerAuthenticator: a holder whose passport is no longer live on chain', () => {
  const nowMs = Date.now();

  async function authenticateWith(metadata: Record<string, string>) {
    const clock = { nowMs: () => nowMs };
    const codec = freshJwtCodec({ issuer: ISSUER, audience: 'owner.near', clock });
    const sessions = new MemorySessionStore();
    const chain = new CachingChainReader(
      new MemoryChainReader({
        contractId: 'c',
        chainTime: nowMs,
        passports: [
          { tokenId: TOKEN_ID, ownerId: 'o', contractId: 'c', metadata, revoked: false },
          { tokenId: SERVER_TOKEN_ID, ownerId: 'owner.near', contractId: 'c', metadata: {}, revoked: false },
        ],
      }),
      { clock },
    );
    const serverPassport = new ServerPassportCheck(
      { tokenId: SERVER_TOKEN_ID, ownerId: 'owner.near' },
      chain,
    );
    const authenticator = new BearerAuthenticator(codec, sessions, clock, chain, serverPassport);
    const sessionId = `sess_${TOKEN_ID}_01JABCDEFGHJKMNPQRSTVWXYZ2`;
    const header = await openSessionBearer(codec, sessions, {
      sessionId,
      tokenId: TOKEN_ID,
      ownerId: 'o',
      issuer: ISSUER,
      audience: 'owner.near',
      nowMs,
    });
    const outcome = await Promise.resolve(authenticator.authenticate(header)).then(
      (context) => `ok ${context.tokenId}`,
      (error: PassportError) => `${error.code} ${(error.details as { cause?: string }).cause}`,
    );
    return { outcome, session: await sessions.get(sessionId) };
  }

  it('past its not_after by the chain time: refused passport_not_live, and its session closed', async () => {
    const { outcome, session } = await authenticateWith({
      not_after: new Date(nowMs - 60_000).toISOString(),
    });
    expect(outcome).toBe('INVALIDATED_TOKEN passport_not_live');
    expect(session).toMatchObject({ closeReason: 'passport_not_live' });
    expect(session?.closedAtMs).not.toBeNull();
  });

  it('before its not_before by the chain time: refused passport_not_live', async () => {
    const { outcome } = await authenticateWith({ not_before: new Date(nowMs + 3_600_000).toISOString() });
    expect(outcome).toBe('INVALIDATED_TOKEN passport_not_live');
  });

  it('within its bounds: accepted, the session left open', async () => {
    const { outcome, session } = await authenticateWith({
      not_before: new Date(nowMs - 60_000).toISOString(),
      not_after: new Date(nowMs + 3_600_000).toISOString(),
    });
    expect(outcome).toBe(`ok ${TOKEN_ID}`);
    expect(session?.closedAtMs).toBeNull();
  });
});
