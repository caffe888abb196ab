/**
 * A passport family on a fake NEAR node, as a CHAIN=near app needs it to start: the family root's
 * record, the server's passport signed into the family, and the server's key file in a new DATA_DIR.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  formatNearCredentials,
  nearCredentialsFromSeed,
  randomFaceTokenId,
  signFamilyMetadata,
} from '@passport/core';
import { implicitAccountId } from '@passport/core/codecs';
import { familyRootTokenId } from '@passport/core/family';
import { createNodeSigner } from '@passport/core/node';
import { cryptoRandomInt } from '@passport/core/token-id';
import { type FakeNearRpc } from '../../fake-near-rpc/fake-near-rpc.server.js';

export interface NearFamilyKey {
  readonly seed: Uint8Array;
  readonly signer: ReturnType<typeof createNodeSigner>;
  readonly accountId: string;
}

export interface NearFamily {
  readonly root: NearFamilyKey;
  readonly server: NearFamilyKey;
  readonly serviceProviderId: string;
  readonly serverTokenId: string;
  /** Holds keys/server.json; the caller removes it. */
  readonly dataDir: string;
}

export function newNearKey(): NearFamilyKey {
  const seed = new Uint8Array(randomBytes(32));
  const signer = createNodeSigner(seed);
  return { seed, signer, accountId: implicitAccountId(signer.publicKey) };
}

/** Seeds `rpc` with a family of `contract` and writes the server's key; `serverMetadata` adds to its passport's. */
export async function seedNearFamily(
  rpc: FakeNearRpc,
  contract: string,
  serverMetadata: Record<string, string> = {},
): Promise<NearFamily> {
  const root = newNearKey();
  const server = newNearKey();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'passport-near-family-'));
  await mkdir(path.join(dataDir, 'keys'), { recursive: true });
  await writeFile(
    path.join(dataDir, 'keys', 'server.json'),
    JSON.stringify(formatNearCredentials(nearCredentialsFromSeed(server.seed))),
    { mode: 0o600 },
  );
  const serviceProviderId = familyRootTokenId({ chain: 'near', contract }, 'root');
  rpc.tokens.push({ token_id: serviceProviderId, owner_id: root.accountId, metadata: {} });
  const serverTokenId = randomFaceTokenId(cryptoRandomInt);
  const metadata: Record<string, string> = {
    serviceprovider_id: serviceProviderId,
    not_before: '',
    not_after: '',
    ...serverMetadata,
  };
  metadata.serviceprovider_signature = signFamilyMetadata(metadata, serverTokenId, root.signer);
  rpc.tokens.push({ token_id: serverTokenId, owner_id: server.accountId, metadata });
  return { root, server, serviceProviderId, serverTokenId, dataDir };
}
