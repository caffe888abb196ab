/** The concierge trust anchor's configuration (`CONCIERGE_*`): defaults from PUBLIC_BASE_URL. */
import { ConfigError } from './config.error.js';
import { httpUrl, read, type Env } from './config-env.readers.js';

/**
 * Concierge trust anchor fields. Every one has a default derived from PUBLIC_BASE_URL (so a fresh
 * start answers `GET /api/concierge/trust-anchor`), a configured value overrides it, and a configured
 * value that is invalid stops the start like any other setting: the endpoint never answers 500 for
 * configuration.
 */
export interface ConciergeConfig {
  readonly displayName: string;
  readonly host: string;
  readonly verifyHost: string;
  readonly supportEmail: string;
  readonly a2aRegistryId: string;
  readonly a2aRegistryUrl: string;
  readonly agentCardUrl: string;
  readonly a2aEndpoint: string;
  /** Raw JSON text of the `contactUris` object. */
  readonly contactUrisJson: string | undefined;
  readonly verifyCli: string;
  readonly lobbyTokenId: string | undefined;
}

/** An e-mail address as the trust anchor publishes it (`support@localhost` included, when configured so). */
export const CONCIERGE_EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)*$/;

/**
 * `support@<host of PUBLIC_BASE_URL>`. The published schema says `format: email`, which needs a dotted
 * domain: a dotless host (`localhost`) gets the reserved `.invalid` (RFC 2606), so a fresh start's
 * trust anchor passes its own OpenAPI schema.
 */
function defaultSupportEmail(publicBaseUrl: string): string {
  const host = new URL(publicBaseUrl).hostname;
  if (/^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(host)) return `support@${host}`;
  return `support@${/^[a-z0-9-]+$/i.test(host) ? host : 'localhost'}.invalid`; // (an IPv6 literal: localhost)
}

/** The concierge fields: configured values checked, the others derived from the public URL. */
export function conciergeConfig(env: Env, publicBaseUrl: string): ConciergeConfig {
  const url = (name: string, fallback: string): string => {
    const raw = read(env, name);
    if (raw === undefined) return fallback;
    httpUrl(name, raw);
    return raw;
  };
  const supportEmail = read(env, 'CONCIERGE_SUPPORT_EMAIL') ?? defaultSupportEmail(publicBaseUrl);
  if (!CONCIERGE_EMAIL_PATTERN.test(supportEmail))
    throw new ConfigError('CONCIERGE_SUPPORT_EMAIL', `must be an e-mail address (got "${supportEmail}")`);
  const contactUrisJson = read(env, 'CONCIERGE_CONTACT_URIS');
  if (contactUrisJson !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(contactUrisJson);
    } catch {
      parsed = null;
    }
    if (
      typeof parsed !== 'object' ||
      parsed === null ||
      Array.isArray(parsed) ||
      !Object.values(parsed).every((v) => typeof v === 'string')
    ) {
      throw new ConfigError('CONCIERGE_CONTACT_URIS', 'must be a JSON object of strings');
    }
  }
  const lobbyTokenId = read(env, 'CONCIERGE_LOBBY_TOKEN_ID')?.toLowerCase();
  if (lobbyTokenId !== undefined && !/^[a-z]{12}$/.test(lobbyTokenId))
    throw new ConfigError('CONCIERGE_LOBBY_TOKEN_ID', `must be a 12-letter token id (got "${lobbyTokenId}")`);
  return {
    displayName: read(env, 'CONCIERGE_DISPLAY_NAME') ?? 'Passport Concierge',
    host: url('CONCIERGE_HOST', publicBaseUrl),
    verifyHost: url('CONCIERGE_VERIFY_HOST', publicBaseUrl),
    supportEmail,
    a2aRegistryId: read(env, 'CONCIERGE_A2A_REGISTRY_ID') ?? 'passport-concierge',
    a2aRegistryUrl: url('CONCIERGE_A2A_REGISTRY_URL', `${publicBaseUrl}/api/agents`),
    agentCardUrl: url('CONCIERGE_AGENT_CARD_URL', `${publicBaseUrl}/.well-known/agent-card.json`),
    a2aEndpoint: url('CONCIERGE_A2A_ENDPOINT', `${publicBaseUrl}/a2a`),
    contactUrisJson,
    verifyCli:
      read(env, 'CONCIERGE_VERIFY_CLI') ??
      // A command any verifier has ("npx passport" would fetch an unrelated npm package of that name;
      // this project's tool is not published).
      `curl -s ${publicBaseUrl}/api/identity/verify -H 'Content-Type: application/json' -d '{"hola":"<HOLA line>"}'`,
    lobbyTokenId,
  };
}
