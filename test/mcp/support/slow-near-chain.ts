/**
 * A fake NEAR node seeded with a passport family, for MCP suites that need a request in a slow chain read:
 * a member never read before sends its first read to the node, which a queued 'slow' fault delays.
 */
import { rm } from 'node:fs/promises';
import { randomFaceTokenId, signFamilyMetadata } from '@passport/core';
import { cryptoRandomInt } from '@passport/core/token-id';
import { startFakeNearRpc, type FakeNearRpc } from '../../fake-near-rpc/fake-near-rpc.server.js';
import { newNearKey, seedNearFamily, type NearFamily } from '../../chain/support/near-family.js';

export const SLOW_CHAIN_CONTRACT = 'passport.test.near';

export interface SlowNearChain {
  readonly rpc: FakeNearRpc;
  readonly family: NearFamily;
  /** The app's environment for this node (CHAIN=near, its URL and contract, the family's DATA_DIR). */
  readonly env: Record<string, string>;
  /** A passport of the family on the node, never read yet (so its first read goes to the node). */
  newMember(): string;
  /** Resolves once the node has been asked for `tokenId` (the read is then in the app's hands). */
  askedFor(tokenId: string): Promise<void>;
  close(): Promise<void>;
}

export async function startSlowNearChain(): Promise<SlowNearChain> {
  const rpc = await startFakeNearRpc(SLOW_CHAIN_CONTRACT);
  rpc.blockTimeMs = Date.now();
  const family = await seedNearFamily(rpc, SLOW_CHAIN_CONTRACT);
  return {
    rpc,
    family,
    env: {
      DATA_DIR: family.dataDir,
      CHAIN: 'near',
      NEAR_RPC_URL: rpc.url,
      NEAR_CONTRACT_ID: SLOW_CHAIN_CONTRACT,
    },
    newMember() {
      const tokenId = randomFaceTokenId(cryptoRandomInt);
      const metadata: Record<string, string> = {
        serviceprovider_id: family.serviceProviderId,
        not_before: '',
        not_after: '',
      };
      metadata.serviceprovider_signature = signFamilyMetadata(metadata, tokenId, family.root.signer);
      rpc.tokens.push({ token_id: tokenId, owner_id: newNearKey().accountId, metadata });
      return tokenId;
    },
    async askedFor(tokenId) {
      const deadline = Date.now() + 5000;
      while (!rpc.requests.some((r) => (r.args as { token_id?: string } | undefined)?.token_id === tokenId)) {
        if (Date.now() > deadline) throw new Error(`the node was never asked for ${tokenId}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async close() {
      await rpc.close();
      await rm(family.dataDir, { recursive: true, force: true });
    },
  };
}
