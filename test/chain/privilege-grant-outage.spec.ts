/**
 * The privilege rule reads the server family's roots apart from the passport (PrivilegeGrants.vouched):
 * a NEAR node that fails then is 503 `SERVICE_UNAVAILABLE` (`chain_unavailable`), as on the JWT tier,
 * never an unexpected error (a final read of the change). Against the fake NEAR JSON-RPC node through the
 * real near-api-js client.
 */
import { randomBytes } from 'node:crypto';
import { PassportError, randomFaceTokenId, signFamilyMetadata } from '@passport/core';
import { familyRootTokenId } from '@passport/core/family';
import { implicitAccountId } from '@passport/core/codecs';
import { createNodeSigner, createNodeVerifier } from '@passport/core/node';
import { cryptoRandomInt } from '@passport/core/token-id';
import { NearChainReader } from '@passport/adapters/near';
import { PrivilegeGrants } from '../../apps/api/src/session/privilege-grant.js';
import { type ServerIdentity } from '../../apps/api/src/platform/infrastructure/server-identity.js';
import { startFakeNearRpc, type FakeNearRpc } from '../fake-near-rpc/fake-near-rpc.server.js';

const CONTRACT = 'passport.test.near';

describe('PrivilegeGrants.vouched on a failing chain', () => {
  let rpc: FakeNearRpc;
  const root = createNodeSigner(new Uint8Array(randomBytes(32)));
  const serviceProviderId = familyRootTokenId({ chain: 'near', contract: CONTRACT }, 'root');
  const tokenId = randomFaceTokenId(cryptoRandomInt);
  const metadata: Record<string, string> = {
    serviceprovider_id: serviceProviderId,
    not_before: '',
    not_after: '',
  };
  metadata.serviceprovider_signature = signFamilyMetadata(metadata, tokenId, root);

  beforeAll(async () => {
    rpc = await startFakeNearRpc(CONTRACT);
    rpc.tokens.push({
      token_id: serviceProviderId,
      owner_id: implicitAccountId(root.publicKey),
      metadata: {},
    });
  });
  afterAll(() => rpc.close());

  const grants = () =>
    new PrivilegeGrants(
      new NearChainReader({
        rpcUrl: rpc.url,
        contractId: CONTRACT,
        // Generous: the node either answers or fails at once here, and a loaded machine (the whole
        // suite beside other work) once took longer than 300 ms for the first read through near-api-js.
        timeoutMs: 5000,
        attempts: 1,
        retryWaitMs: 1,
      }),
      createNodeVerifier(),
      { serviceProviderId } as ServerIdentity,
      { nowMs: () => Date.now() },
    );

  it('vouches for a passport its root signed while the node answers', async () => {
    await expect(grants().vouched({ tokenId, metadata })).resolves.toBe(true);
    await expect(grants().vouched({ tokenId, metadata: { ...metadata, max_requests: '9' } })).resolves.toBe(
      false,
    );
  });

  it('answers 503 chain_unavailable when the node fails reading the root', async () => {
    rpc.enqueue(...Array.from({ length: 10 }, () => ({ kind: 'http' as const, status: 503 })));
    try {
      const error = await grants()
        .vouched({ tokenId, metadata })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PassportError);
      expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { reason: 'chain_unavailable' } });
    } finally {
      rpc.clearFaults();
    }
  });
});
