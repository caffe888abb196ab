/**
 * The bearer tier's answer when the session store cannot be read: 503 SERVICE_UNAVAILABLE with the
 * reason `session_store_unavailable`, on the synchronous read (memory, SQLite) as on the asynchronous
 * one (Redis). A store outage must not look like a logout (401), or clients would log in again instead
 * of retrying.
 */
import { PassportError } from '@passport/core/errors';
import { type SessionStore } from '@passport/core/ports';
import { MemoryChainReader, MemorySessionStore } from '@passport/core/testing';
import { ServerPassportCheck } from '../platform/chain/server-passport.check.js';
import { BearerAuthenticator } from './bearer.authenticator.js';
import { type EddsaJwtCodec } from './eddsa-jwt.codec.js';
import { freshJwtCodec } from './testing/session-fixtures.js';

const ISSUER = 'https://api.example.test';
const AUDIENCE = 'a'.repeat(64);
const NOW = 1_800_000_000_000;

function codec(): EddsaJwtCodec {
  return freshJwtCodec({ issuer: ISSUER, audience: AUDIENCE, clock: { nowMs: () => NOW } });
}

async function bearer(jwt: EddsaJwtCodec): Promise<string> {
  const iat = Math.floor(NOW / 1000);
  const token = await jwt.sign({
    iss: ISSUER,
    sub: 'bc=local;sc=passport.test;id=devroot;sub=bjbvcjzqbdsj',
    aud: AUDIENCE,
    iat,
    nbf: iat,
    exp: iat + 3600,
    jti: 'jti-1',
    session_id: 'sess_bjbvcjzqbdsj_01J00000000000000000000001',
    session_exp: iat + 3600,
    passport_subjectuniqueidentifier_url: null,
  });
  return `Bearer ${token}`;
}

/** A store whose disk has gone: every read fails (sync throw, or a rejected promise). */
class FailingSessionStore extends MemorySessionStore {
  override getSync(): never {
    throw new Error('disk I/O error');
  }
  override async get(): Promise<never> {
    throw new Error('disk I/O error');
  }
}

/** The same failing store without a synchronous read (as Redis). */
const asyncOnly = (): SessionStore => {
  const store = new FailingSessionStore();
  return { get: store.get.bind(store) } as unknown as SessionStore;
};

describe.each([
  ['synchronous read (memory, SQLite)', () => new FailingSessionStore() as SessionStore],
  ['asynchronous read (Redis)', asyncOnly],
])('BearerAuthenticator, session store failing on the %s', (_name, store) => {
  it('answers SERVICE_UNAVAILABLE (session_store_unavailable), not a logout', async () => {
    const jwt = codec();
    const chain = new MemoryChainReader({ contractId: 'passport.test' });
    const serverPassport = new ServerPassportCheck({ tokenId: 'lkjihgfedcba', ownerId: 'owner.near' }, chain);
    const authenticator = new BearerAuthenticator(jwt, store(), { nowMs: () => NOW }, chain, serverPassport);
    const header = await bearer(jwt);
    for (const attempt of [
      () => authenticator.authenticate(header),
      async () => authenticator.authenticateSync(header),
    ]) {
      const error = await attempt().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(PassportError);
      expect(error).toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        details: { reason: 'session_store_unavailable' },
      });
    }
  });
});
