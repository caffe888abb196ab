/**
 * @module family/serviceprovider-id
 * The family a passport claims: `bc=<chain>;sc=<contract>;id=<root>[;id=<root2>…]` (docs/protocol.md §3).
 * Each `id` names a family root, whose passport has the token id `bc=<chain>;sc=<contract>;id=<root>`.
 * Parsing is strict (this order, no empty values, no spaces) so that one family has one spelling.
 */

export interface ServiceProviderId {
  readonly chain: string;
  readonly contract: string;
  /** One or more family-root ids, in the order written, without duplicates. */
  readonly rootIds: readonly string[];
}

const VALUE = /^[^;=\s]+$/;

export function parseServiceProviderId(text: unknown): ServiceProviderId | null {
  if (typeof text !== 'string') return null;
  const parts = text.split(';').map((part) => {
    const eq = part.indexOf('=');
    return eq < 0 ? null : { key: part.slice(0, eq), value: part.slice(eq + 1) };
  });
  if (parts.length < 3 || parts.some((p) => p === null || !VALUE.test(p.value))) return null;
  const [bc, sc, ...ids] = parts as { key: string; value: string }[];
  if (bc.key !== 'bc' || sc.key !== 'sc' || ids.some((p) => p.key !== 'id')) return null;
  const rootIds = ids.map((p) => p.value);
  if (new Set(rootIds).size !== rootIds.length) return null;
  return { chain: bc.value, contract: sc.value, rootIds };
}

export function formatServiceProviderId(id: ServiceProviderId): string {
  return [`bc=${id.chain}`, `sc=${id.contract}`, ...id.rootIds.map((root) => `id=${root}`)].join(';');
}

/** The token id of a family root's passport: `bc=<chain>;sc=<contract>;id=<root>`. */
export function familyRootTokenId(id: Pick<ServiceProviderId, 'chain' | 'contract'>, rootId: string): string {
  return `bc=${id.chain};sc=${id.contract};id=${rootId}`;
}

/** The family roots two ids have in common (same chain and contract, and a shared `id`). */
export function sharedFamilyRoots(a: ServiceProviderId, b: ServiceProviderId): string[] {
  if (a.chain !== b.chain || a.contract !== b.contract) return [];
  return a.rootIds.filter((root) => b.rootIds.includes(root));
}
