/**
 * The bearer tier while the server passport (whose key signs every token) is unusable: no token is
 * honoured (503 with the reason login gives), judged on the calling stack once the passport is cached,
 * a time-bounded server passport included; a chain outage is 503 `chain_unavailable`; a bad or closed
 * token is still refused as such (401), since it would be refused whatever the server passport.
 */
import { CachingChainReader } from '@passport/adapters/caching';
import { PassportError, type PassportRecord } from '@passport/core';
import { MemoryChainReader, MemorySessionStore } from '@passport/core/testing';
import { ServerPassportCheck } from '../platform/chain/server-passport.check.js';
import { BearerAuthenticator } from './bearer.authenticator.js';
import { freshJwtCodec, openSessionBearer } from './testing/session-fixtures.js';

const ISSUER = 'http://127.0.0.1:1';
const AUDIENCE = 'owner.near';
const HOLDER = 'abcdefghijkl';
const SERVER = 'lkjihgfedcba';
const NOW = Date.now();

const server = (metadata: Record<string, string> = {}): PassportRecord => ({
  tokenId: SERVER,
  ownerId: AUDIENCE,
  contractId: 'c',
  metadata,
  revoked: false,
});

async function setUp(serverRecord: PassportRecord) {
  const clock = { nowMs: () => NOW };
  const codec = freshJwtCodec({ issuer: ISSUER, audience: AUDIENCE, clock });
  const inner = new MemoryChainReader({
    contractId: 'c',
    chainTime: NOW,
    passports: [
      { tokenId: HOLDER, ownerId: 'o', contractId: 'c', metadata: {}, revoked: false },
      serverRecord,
    ],
  });
  const chain = new CachingChainReader(inner);
  const sessions = new MemorySessionStore();
  const authenticator = new BearerAuthenticator(
    codec,
    sessions,
    clock,
    chain,
    new ServerPassportCheck({ tokenId: SERVER, ownerId: AUDIENCE }, chain),
  );
  const token = (sessionId: string) =>
    openSessionBearer(codec, sessions, {
      sessionId,
      tokenId: HOLDER,
      ownerId: 'o',
      issuer: ISSUER,
      audience: AUDIENCE,
      nowMs: NOW,
    });
  return { inner, chain, sessions, authenticator, token };
}

/** The answer of one call: `sync` or `async`, and `ok` or the error's code and details. */
async function answer(call: () => unknown): Promise<string> {
  let result: unknown;
  try {
    result = call();
  } catch (error) {
    return `sync ${summary(error)}`;
  }
  if (!(result instanceof Promise)) return 'sync ok';
  return result.then(
    () => 'async ok',
    (error: unknown) => `async ${summary(error)}`,
  );
}
const summary = (error: unknown): string =>
  error instanceof PassportError ? `${error.code} ${JSON.stringify(error.details)}` : String(error);

describe('BearerAuthenticator and the server passport', () => {
  it('refuses every token while the server passport is revoked: 503, on the calling stack once cached', async () => {
    const { inner, chain, authenticator, token } = await setUp(server());
    const header = await token('sess_a');
    expect(await answer(() => authenticator.authenticate(header))).toBe('async ok');
    expect(await answer(() => authenticator.authenticateSync(header))).toBe('sync ok');
    inner.revokePassport(SERVER);
    chain.clear();
    const refused = 'SERVICE_UNAVAILABLE {"reason":"server_passport_revoked"}';
    expect(await answer(() => authenticator.authenticateSync(header))).toBe(`async ${refused}`);
    expect(await answer(() => authenticator.authenticateSync(header))).toBe(`sync ${refused}`);
  });

  it.each([
    [
      'transferred',
      (r: PassportRecord) => ({ ...r, ownerId: 'someone-else.near' }),
      'server_passport_transferred',
    ],
    [
      'past its not_after',
      (r: PassportRecord) => ({ ...r, metadata: { not_after: new Date(NOW - 60_000).toISOString() } }),
      'server_passport_not_live',
    ],
  ])('refuses every token while the server passport is %s', async (_state, change, reason) => {
    const { inner, authenticator, token } = await setUp(server());
    const header = await token('sess_b');
    inner.replacePassport(change(server()));
    expect(await answer(() => authenticator.authenticate(header))).toBe(
      `async SERVICE_UNAVAILABLE {"reason":"${reason}"}`,
    );
  });

  it('a time-bounded live server passport is judged on the calling stack too, once its verdict is read', async () => {
    const { authenticator, token } = await setUp(
      server({ not_after: new Date(NOW + 86_400_000).toISOString() }),
    );
    const header = await token('sess_c');
    expect(await answer(() => authenticator.authenticate(header))).toBe('async ok');
    expect(await answer(() => authenticator.authenticateSync(header))).toBe('sync ok');
  });

  it('a chain outage while reading the server passport is 503 chain_unavailable, not a verdict', async () => {
    const { inner, chain, authenticator, token } = await setUp(server());
    const header = await token('sess_d');
    expect(await answer(() => authenticator.authenticate(header))).toBe('async ok');
    chain.clear();
    inner.setUnavailable('node down');
    expect(await answer(() => authenticator.authenticateSync(header))).toBe(
      'async SERVICE_UNAVAILABLE {"reason":"chain_unavailable"}',
    );
  });

  it('while the server passport is revoked, a bad or closed token is still refused as such (401)', async () => {
    const { inner, sessions, authenticator, token } = await setUp(server());
    inner.revokePassport(SERVER);
    const closed = await token('sess_e');
    await sessions.close('sess_e', 'logout', NOW);
    expect(await answer(() => authenticator.authenticate(closed))).toBe(
      'async INVALIDATED_TOKEN {"reason":"error_checking_session","cause":"session_closed"}',
    );
    const forged = `${closed.slice(0, -4)}AAAA`;
    expect(await answer(() => authenticator.authenticate(forged))).toMatch(/^async INVALIDATED_TOKEN /);
  });
});
