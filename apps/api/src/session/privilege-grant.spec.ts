/**
 * PrivilegeGrants on its own (a mutation probe: with the server's own family unparsable, login refuses
 * everyone, so only sessions kept across a restart could meet this answer, and no test did).
 */
import { type PassportRecord } from '@passport/core';
import { MemoryChainReader } from '@passport/core/testing';
import { createNobleVerifier } from '@passport/core/crypto';
import { type ServerIdentity } from '../platform/infrastructure/server-identity.js';
import { type AuthContext } from './auth-context.js';
import { PrivilegeGrants } from './privilege-grant.js';

const routes = JSON.stringify({ entities: { methods: { '/api/sessions': '1' } } });
const passport: PassportRecord = {
  tokenId: 'abcdefghijkl',
  ownerId: 'o',
  contractId: 'c',
  metadata: { permissioned_routes: routes, serviceprovider_id: 'bc=local;sc=c;id=root' },
  revoked: false,
};
const auth = {
  tokenId: passport.tokenId,
  sessionId: 'sess_x',
  claims: { passport_permissionedroutes: routes },
  passport,
} as unknown as AuthContext;

describe('PrivilegeGrants', () => {
  it('grants nothing while the server has no family it can read (an unparsable serviceprovider_id)', async () => {
    for (const serviceProviderId of ['', 'not a family']) {
      const grants = new PrivilegeGrants(
        new MemoryChainReader({ contractId: 'c', passports: [passport] }),
        createNobleVerifier(),
        { serviceProviderId } as ServerIdentity,
        { nowMs: () => 0 },
      );
      await expect(grants.granted(auth, '/api/sessions')).resolves.toBe(false);
      await expect(grants.vouched(passport)).resolves.toBe(false);
    }
  });
});
