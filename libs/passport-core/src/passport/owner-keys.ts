/**
 * @module passport/owner-keys
 * The Ed25519 keys that may sign for a passport owner: an implicit account's own key, or a named
 * account's full-access keys from the chain (docs/protocol.md §1, a deviation: production knows only
 * implicit accounts). Ownership follows the chain, so there is no separate key registry.
 */
import { publicKeyOfImplicitAccount } from '../codecs/account-id.js';
import { type ChainReader } from '../ports/chain-reader.port.js';
import { isBytes } from '@noble/hashes/utils.js';

export async function resolveOwnerKeys(chain: ChainReader, ownerId: string): Promise<Uint8Array[]> {
  const implicitKey = publicKeyOfImplicitAccount(ownerId);
  if (implicitKey) return [implicitKey];
  const keys = await chain.getAccountKeys(ownerId);
  // A port adapter may return anything; only 32-byte keys can verify an Ed25519 signature.
  return keys.filter((key) => isBytes(key) && key.length === 32);
}
