/**
 * TokenRenewer on its own (a mutation probe: the authenticator checks the session and the server
 * passport just before a renewal, so only a race reaches these answers, and no end-to-end test could
 * tell them apart): a session closed meanwhile gets no token, nor does a moment when the server
 * passport is unusable, and such a refusal is not remembered for the token's whole life.
 */
import { createNobleSigner } from '@passport/core/crypto';
import { type PassportRecord } from '@passport/core';
import { type SessionStore } from '@passport/core/ports';
import { type AppConfig } from '../platform/config/app-config.js';
import { type ServerPassportCheck } from '../platform/chain/server-passport.check.js';
import { type ServerIdentity } from '../platform/infrastructure/server-identity.js';
import { type AuthContext } from './auth-context.js';
import { freshJwtCodec } from './testing/session-fixtures.js';
import { TokenRenewer } from './token-renewer.js';

const ISSUER = 'http://127.0.0.1:1';
const iat = 1_800_000_000;
// 3600 s tokens: the renewal point is iat + 2880 s (the last 20 %).
const nowMs = (iat + 3000) * 1000;
const clock = { nowMs: () => nowMs };
const passport: PassportRecord = {
  tokenId: 'abcdefghijkl',
  ownerId: 'o',
  contractId: 'c',
  metadata: {},
  revoked: false,
};

function renewerWith(answers: {
  recorded?: boolean;
  problems?: Array<string | undefined>;
  renewal?: 'server' | 'off';
}) {
  let renewals = 0;
  const problems = [...(answers.problems ?? [])];
  const sessions = {
    recordRenewal: async () => (renewals++, answers.recorded ?? true),
  } as unknown as SessionStore;
  const serverPassport = { problem: async () => problems.shift() } as unknown as ServerPassportCheck;
  const renewer = new TokenRenewer(
    { sessions: { renewal: answers.renewal ?? 'server' } } as AppConfig,
    { signer: createNobleSigner(new Uint8Array(32).fill(4)) } as unknown as ServerIdentity,
    sessions,
    clock,
    freshJwtCodec({ issuer: ISSUER, audience: 'owner.near', clock }),
    serverPassport,
  );
  return { renewer, renewals: () => renewals };
}

const auth = (jti: string): AuthContext =>
  ({
    claims: {
      iss: ISSUER,
      sub: 'sub=abcdefghijkl',
      aud: 'owner.near',
      iat,
      nbf: iat,
      exp: iat + 3600,
      jti,
      session_id: 'sess_x',
      session_exp: iat + 7200,
      passport_id: 'abcdefghijkl',
    },
    sessionId: 'sess_x',
    tokenId: 'abcdefghijkl',
    passport,
  }) as unknown as AuthContext;

describe('TokenRenewer', () => {
  it('renews a token at its renewal point', async () => {
    const { renewer, renewals } = renewerWith({});
    await expect(renewer.renewIfDue(auth('a'))).resolves.toEqual(expect.any(String));
    expect(renewals()).toBe(1);
  });
  it('gives no token when the session refuses the renewal (closed meanwhile)', async () => {
    const { renewer } = renewerWith({ recorded: false });
    await expect(renewer.renewIfDue(auth('b'))).resolves.toBeNull();
  });
  it('gives no token while the server passport is unusable, and records no renewal', async () => {
    const { renewer, renewals } = renewerWith({ problems: ['server_passport_revoked'] });
    await expect(renewer.renewIfDue(auth('c'))).resolves.toBeNull();
    expect(renewals()).toBe(0);
  });
  it('tries again on a later request once the server passport is usable (the refusal is not shared)', async () => {
    const { renewer } = renewerWith({ problems: ['server_passport_revoked', undefined] });
    await expect(renewer.renewIfDue(auth('d'))).resolves.toBeNull();
    await expect(renewer.renewIfDue(auth('d'))).resolves.toEqual(expect.any(String));
  });
  // A mutation probe: JWT_RENEWAL=off ignored passed (the end-to-end case has exp = session_exp, where
  // nothing renews whatever the setting).
  it('JWT_RENEWAL=off: no token at the renewal point, and no renewal recorded', () => {
    const { renewer, renewals } = renewerWith({ renewal: 'off' });
    expect(renewer.renewIfDue(auth('e'))).toBeNull();
    expect(renewals()).toBe(0);
  });
});
