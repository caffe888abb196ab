/**
 * @module profile/agent-listing
 * `GET /api/agents` (spec "Agents list body"; docs/protocol.md §4): items `{tokenId, creature, face}`,
 * offset-cursor paging and the self-declared disclaimer.
 *
 * Paging: `cursor` is the decimal chain offset as a string (absent or empty = 0); `limit` an integer
 * 1..100 (default 20); anything else → 400 `INVALID_QUERY_PARAMETER` with `{parameter, reason}`.
 * The app reads `limit + 1` records from the offset (`agentsChainPage`) so that it knows whether a
 * next page exists without counting. Chain records whose token id is not 12 letters (family-root
 * passports `bc=…;sc=…;id=…`) are not agents and are left out, so a page may hold fewer than
 * `limit` items while `nextCursor` is still set.
 */
import { type PassportRecord } from '../passport/passport.types.js';
import { type PageRequest } from '../ports/chain-reader.port.js';
import { decodeFace, type Face } from '../token-id/face.decoder.js';
import { isTokenId } from '../token-id/token-id.js';
import { parseDn } from '../dn/dn.parser.js';
import { SELF_DECLARED_DISCLAIMER } from './disclaimer.js';
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

/** The chain page to read for a query: one record more than the limit, to detect a next page. */
export function agentsChainPage(query: AgentsQuery): PageRequest {
  return { fromIndex: query.offset, limit: query.limit + 1 };
}

/** Builds the page from the records read with `agentsChainPage(query)`. */
export function buildAgentsPage(records: readonly PassportRecord[], query: AgentsQuery): AgentsPage {
  const page = records.slice(0, query.limit);
  return {
    agents: page.filter((r) => isTokenId(r.tokenId)).map(agentListItem),
    nextCursor: records.length > query.limit ? String(query.offset + query.limit) : null,
    disclaimer: SELF_DECLARED_DISCLAIMER,
  };
}

export function agentListItem(record: Pick<PassportRecord, 'tokenId' | 'metadata'>): AgentListItem {
  return {
    tokenId: record.tokenId,
    creature: parseDn(record.metadata.userselected_dn)?.creature ?? null,
    face: decodeFace(record.tokenId),
  };
}

