/**
 * Builds the concierge trust anchor from configuration. The configuration already checked every field
 * at start (defaults from PUBLIC_BASE_URL, invalid values stop the start); these checks remain as a
 * last guard, so a config built some other way still never publishes a malformed anchor (500
 * `CONCIERGE_CONFIG_FAILED`; the offending variable names are logged, not sent).
 */
import { CONCIERGE_EMAIL_PATTERN, type ConciergeConfig } from '../platform/config/concierge.config.js';

export type TrustAnchor = Omit<import('./trust-anchor.schema.js').TrustAnchorResponse, 'requestId'>;

export type TrustAnchorResult = { ok: true; anchor: TrustAnchor } | { ok: false; problems: string[] };

const EMAIL = CONCIERGE_EMAIL_PATTERN;
const TOKEN_ID = /^[a-z]{12}$/;

function isHttpUrl(value: string | undefined): value is string {
  if (value === undefined) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

export function buildTrustAnchor(config: ConciergeConfig): TrustAnchorResult {
  const problems: string[] = [];
  const url = (name: string, value: string | undefined): string => {
    if (!isHttpUrl(value)) problems.push(name);
    return value ?? '';
  };
  const text = (name: string, value: string | undefined): string => {
    if (value === undefined || value === '') problems.push(name);
    return value ?? '';
  };

  const host = url('CONCIERGE_HOST', config.host);
  const verifyHost = url('CONCIERGE_VERIFY_HOST', config.verifyHost);
  const a2aRegistryUrl = url('CONCIERGE_A2A_REGISTRY_URL', config.a2aRegistryUrl);
  const agentCardUrl = url('CONCIERGE_AGENT_CARD_URL', config.agentCardUrl);
  const a2aEndpoint = url('CONCIERGE_A2A_ENDPOINT', config.a2aEndpoint);
  const displayName = text('CONCIERGE_DISPLAY_NAME', config.displayName);
  const a2aRegistryId = text('CONCIERGE_A2A_REGISTRY_ID', config.a2aRegistryId);
  const verifyCli = text('CONCIERGE_VERIFY_CLI', config.verifyCli);
  const supportEmail = config.supportEmail ?? '';
  if (!EMAIL.test(supportEmail)) problems.push('CONCIERGE_SUPPORT_EMAIL');

  let contactUris: Record<string, string> = {};
  if (config.contactUrisJson !== undefined) {
    try {
      const parsed: unknown = JSON.parse(config.contactUrisJson);
      if (
        typeof parsed !== 'object' ||
        parsed === null ||
        Array.isArray(parsed) ||
        !Object.values(parsed).every((v) => typeof v === 'string')
      ) {
        problems.push('CONCIERGE_CONTACT_URIS');
      } else {
        contactUris = parsed as Record<string, string>;
      }
    } catch {
      problems.push('CONCIERGE_CONTACT_URIS');
    }
  } else {
    contactUris = { a2a: a2aEndpoint, email: `mailto:${supportEmail}` };
  }

  const lobbyTokenId = config.lobbyTokenId === undefined ? null : config.lobbyTokenId.toLowerCase();
  if (lobbyTokenId !== null && !TOKEN_ID.test(lobbyTokenId)) problems.push('CONCIERGE_LOBBY_TOKEN_ID');

  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    anchor: {
      displayName,
      host,
      verifyHost,
      supportEmail,
      a2aRegistryId,
      a2aRegistryUrl,
      agentCardUrl,
      a2aEndpoint,
      contactUris,
      verifyCli,
      lobbyTokenId,
    },
  };
}
