/**
 * @module profile/agent-listing
 * `GET /api/agents` (spec "Agents list body"; docs/protocol.md §4): items `{tokenId, creature, face}`,
 * offset-cursor paging and the self-declared disclaimer.
 *
 * Paging: `cursor` is the decimal chain offset as a string (absent or empty = 0); `limit` an integer
 * 1..100 (default 20); anything else → 400 `INVALID_QUERY_PARAMETER` with `{parameter, reason}`.
 * Chain records whose token id is not 12 letters (family-root passports `bc=…;sc=…;id=…`) are not
 * agents: `listAgentsPage` reads past them until the page holds `limit` agents, and reads one agent
 * more to know whether a next page exists (without counting). `nextCursor` is the chain offset of
 * that next agent, so every page but the last is full and no agent is listed twice or skipped. Reads ask
 * for at most `AGENTS_CHAIN_READ_MAX` records, and only an empty read ends the listing (a reader may
 * answer fewer than asked). A page reads past at most `AGENTS_PAGE_MAX_SKIPPED` + 1 non-agent records,
 * and makes at most `AGENTS_PAGE_MAX_READS` chain reads; then it answers what it has, with the cursor
 * where it stopped. A token id the page already holds (a chain that repeats itself) is read past as a
 * non-agent: no page lists an agent twice.
 */
import { type PassportRecord } from '../passport/passport.types.js';
import { type PageRequest } from '../ports/chain-reader.port.js';
import { decodeFace, type Face } from '../token-id/face.decoder.js';
import { isTokenId } from '../token-id/token-id.js';
import { parseDn } from '../dn/dn.parser.js';
import { SELF_DECLARED_DISCLAIMER } from './disclaimer.js';
import { profileText } from './profile-links.js';
import { PAGE_DEFAULT_LIMIT, parseOffsetPageQuery, type OffsetPageQuery } from '../paging/offset-page.js';

export const AGENTS_DEFAULT_LIMIT = PAGE_DEFAULT_LIMIT;

export interface AgentListItem {
  readonly tokenId: string;
  readonly creature: string | null;
  readonly face: Face | null;
}

export type AgentsQuery = OffsetPageQuery;

export interface AgentsPage {
  readonly agents: AgentListItem[];
  readonly nextCursor: string | null;
  readonly disclaimer: string;
}

/** Validates raw query values (strings from HTTP, numbers from MCP/clients). */
/** The agents listing pages like every other listing (paging/offset-page.ts). */
export const parseAgentsQuery = parseOffsetPageQuery;

/** A page reads past at most this many non-agent chain records, plus one (bounds a page's reads on any ledger). */
export const AGENTS_PAGE_MAX_SKIPPED = 100;

/** The most records one chain read asks for (NEAR readers and NEP-171 contracts cap pages at 100). */
export const AGENTS_CHAIN_READ_MAX = 100;

/**
 * The most chain reads one page makes. On a chain that answers what it is asked, a full page needs at
 * most four (the first asks for limit + 1 records, the others for `AGENTS_CHAIN_READ_MAX`, and a page
 * reads at most 101 agents and 102 non-agents); a node answering one record per read at its time bound
 * held one request for 99 s (measured).
 */
export const AGENTS_PAGE_MAX_READS = 5;

/** One page of agents, read from the chain listing `list` (the chain reader's `listPassports`). */
export async function listAgentsPage(
  list: (page: PageRequest) => Promise<readonly PassportRecord[]>,
  query: AgentsQuery,
): Promise<AgentsPage> {
  const agents: AgentListItem[] = [];
  const page = (nextCursor: string | null): AgentsPage => ({
    agents,
    nextCursor,
    disclaimer: SELF_DECLARED_DISCLAIMER,
  });
  const listed = new Set<string>();
  let offset = query.offset;
  let skipped = 0;
  for (let reads = 0; reads < AGENTS_PAGE_MAX_READS; reads++) {
    // First the agents the page needs, and one more: the first agent beyond the page is the next
    // cursor. A page that had to read past non-agents then reads in full chunks, so that its reads
    // cover every record a full page may need (limit + 1 agents and the non-agents read past).
    const want = reads === 0 ? Math.min(AGENTS_CHAIN_READ_MAX, query.limit + 1) : AGENTS_CHAIN_READ_MAX;
    const records = await list({ fromIndex: offset, limit: want });
    // Only an empty read ends the listing: a reader or a contract may answer fewer than asked.
    if (records.length === 0) return page(null);
    for (const record of records) {
      if (isTokenId(record.tokenId) && !listed.has(record.tokenId)) {
        if (agents.length === query.limit) return page(String(offset));
        agents.push(agentListItem(record));
        listed.add(record.tokenId);
      } else if (++skipped > AGENTS_PAGE_MAX_SKIPPED) {
        return page(String(offset + 1));
      }
      offset++;
    }
  }
  return page(String(offset));
}

interface ListedItem {
  readonly dn: string | undefined;
  readonly item: AgentListItem;
}

/**
 * Items by the metadata object they were made from. Chain readers hand out the same record objects
 * while they hold them (the ledger until it changes, the chain cache for its lifetime), and a page of
 * 100 agents with 2 KB DNs cost about 12 ms of CPU per request when every DN was parsed again (a
 * public route, measured). An item is reused only for the same token id and DN text; entries go with
 * the records.
 */
const listedItems = new WeakMap<object, ListedItem>();

export function agentListItem(record: Pick<PassportRecord, 'tokenId' | 'metadata'>): AgentListItem {
  const dn = record.metadata.userselected_dn;
  const listed = listedItems.get(record.metadata as object);
  if (listed !== undefined && listed.dn === dn && listed.item.tokenId === record.tokenId) return listed.item;
  // Shared by every later call: frozen all the way down, so no caller changes what the others see.
  const item: AgentListItem = Object.freeze({
    tokenId: record.tokenId,
    creature: profileText(parseDn(dn)?.creature),
    face: frozenFace(decodeFace(record.tokenId)),
  });
  listedItems.set(record.metadata, { dn, item });
  return item;
}

function frozenFace(face: Face | null): Face | null {
  if (face === null) return null;
  for (const value of Object.values(face.categories)) Object.freeze(value);
  Object.freeze(face.categories);
  return Object.freeze(face);
}
