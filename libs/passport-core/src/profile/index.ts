/**
 * @module @passport/core/profile
 * Identity documents: distinguished names, public and full profiles, the agent listing and its paging.
 */

// Distinguished names
export {
  parseDn,
  isDnFullyParsed,
  formatDn,
  escapeDnValue,
  isContactUri,
  DN_MAX_LENGTH,
  type DnAttribute,
  type ParsedDn,
} from '../dn/dn.parser.js';

// Profiles
export { buildPublicProfile, unavailableProfile, type PublicProfile } from './public-profile.js';
export { buildFullIdentity, buildOwnIdentity, type FullIdentity, type OwnIdentity } from './full-identity.js';
export { SELF_DECLARED_DISCLAIMER } from './disclaimer.js';

// Agent listing and paging
export {
  listAgentsPage,
  AGENTS_PAGE_MAX_SKIPPED,
  AGENTS_CHAIN_READ_MAX,
  AGENTS_PAGE_MAX_READS,
  agentListItem,
  parseAgentsQuery,
  AGENTS_DEFAULT_LIMIT,
  type AgentListItem,
  type AgentsPage,
  type AgentsQuery,
} from './agent-listing.js';
export {
  parseOffsetPageQuery,
  nextCursorAfter,
  PAGE_DEFAULT_LIMIT,
  PAGE_MAX_LIMIT,
  type OffsetPageQuery,
} from '../paging/offset-page.js';
