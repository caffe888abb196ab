/**
 * @module passport/owner-keys
 * The Ed25519 keys that may sign for a passport owner: an implicit account's own key, or a named
 * account's full-access keys from the chain (docs/protocol.md §1, a deviation: production knows only
 * implicit accounts). Ownership follows the chain, so there is no separate key registry.
 *
 * A named account with more than `MAX_OWNER_KEYS` full-access Ed25519 keys signs with none of them. A
 * bad signature is tried against every key, and anyone can send one: an account with 5000 keys would
 * make each forged line on the public verify endpoint cost 5000 Ed25519 checks (10 lines: 4.8 s of
 * CPU, measured), and its DID document 5 MB. Keeping only some would be worse than none: NEAR lists an
 * account's keys by their bytes, so adding a key would silently drop another that signs today.
 */
import { publicKeyOfImplicitAccount } from '../codecs/account-id.js';
import { type ChainReader } from '../ports/chain-reader.port.js';
import { isBytes } from '@noble/hashes/utils.js';

/** The most full-access keys a named account may hold and still sign (beyond it, it signs with none). */
export const MAX_OWNER_KEYS = 64;

export async function resolveOwnerKeys(chain: ChainReader, ownerId: string): Promise<Uint8Array[]> {
  const implicitKey = publicKeyOfImplicitAccount(ownerId);
  if (implicitKey) return [implicitKey];
  const keys = await chain.getAccountKeys(ownerId);
  // A port adapter may return anything; only 32-byte keys can verify an Ed25519 signature.
  const usable = keys.filter((key) => isBytes(key) && key.length === 32);
  return usable.length > MAX_OWNER_KEYS ? [] : usable;
}
