/**
 * The policy documents under `/.well-known/` (terms of service, privacy policy, data retention, and
 * why this service exists). They describe what this software actually does with data; an operator
 * who changes that (longer log retention, say) must change these texts too.
 */
import { MAX_HOLA_MAX_AGE_MS } from '@passport/core/hola';
import { REPLAY_DECISION_MARGIN_MS } from '@passport/core/ports';
import { type LogLevel } from '../platform/config/app-config.js';
import { APP_NAME, APP_VERSION } from '../platform/config/app-version.js';
import { PATHS } from './discovery.paths.js';

export interface PolicySection {
  readonly heading: string;
  readonly text: string;
}

export interface PolicyDocument {
  readonly title: string;
  readonly version: string;
  readonly summary: string;
  readonly sections: readonly PolicySection[];
  readonly contact: string;
}

export type PolicyName = 'terms-of-service' | 'privacy-policy' | 'data-retention' | 'why-identyclaw';

/** The configured values the documents state (a document must say what this deployment does). */
export interface PolicyFacts {
  /** SESSION_TTL_SECONDS: a session's lifetime from login. */
  readonly sessionTtlSeconds: number;
  /** HOLA_FUTURE_SKEW_MS: how far ahead a HOLA line may be stamped. */
  readonly holaFutureSkewMs: number;
  /** LOG_LEVEL: `debug` and `trace` write one access line per request. */
  readonly logLevel: LogLevel;
}

/** A replay record outlives the widest window, the future skew and the decision margin (docs/protocol.md §2). */
const replayRecordSeconds = (facts: PolicyFacts): number =>
  (MAX_HOLA_MAX_AGE_MS + facts.holaFutureSkewMs + REPLAY_DECISION_MARGIN_MS) / 1000;

const auditLogText = (facts: PolicyFacts): string =>
  ['info', 'debug', 'trace'].includes(facts.logLevel)
    ? "Administrators' acts (session revocation and cleanup, refused privileged requests) are logged with who did them."
    : "Administrators' acts are logged at info, which this level drops.";

const accessLogText = (facts: PolicyFacts): string =>
  facts.logLevel === 'debug' || facts.logLevel === 'trace'
    ? `At this deployment's LOG_LEVEL (${facts.logLevel}) each response writes one access line: request id, method, route pattern (not the path; null for an unknown path), status and duration.`
    : `At this deployment's LOG_LEVEL (${facts.logLevel}) no line is written per request (at debug, one access line: request id, method, route pattern, status and duration).`;

const section = (heading: string, text: string): PolicySection => ({ heading, text });

export function policyDocument(name: PolicyName, base: string, facts: PolicyFacts): PolicyDocument {
  const contact = `${base}${PATHS.trustAnchor}`;
  switch (name) {
    case 'terms-of-service':
      return {
        title: `${APP_NAME}: terms of service`,
        version: APP_VERSION,
        summary: 'Use the API to prove and check passport identities; do not abuse it or impersonate others.',
        sections: [
          section(
            'Service',
            'The API issues login challenges and short-lived JWTs, verifies HOLA lines, and publishes identity data that is already public on-chain. It is provided as is, without warranty.',
          ),
          section(
            'Your keys',
            'You control your passport key. The service never asks for a private key; only signatures are sent. A leaked key lets anyone act as your passport until you transfer or revoke it on-chain.',
          ),
          section(
            'Fair use',
            'Public routes are rate limited per client address (see /.well-known/data-retention for what is counted). Automated load beyond the published limits is refused with 429.',
          ),
          section(
            'Self-declared data',
            'Names, creatures, contact URIs and other passport metadata are declared by their holders and are not checked by the service.',
          ),
        ],
        contact,
      };
    case 'privacy-policy':
      return {
        title: `${APP_NAME}: privacy policy`,
        version: APP_VERSION,
        summary:
          'The service keeps only what it needs to run sessions, stop replays and rate-limit; it sets no cookies and sells nothing.',
        sections: [
          section(
            'What is processed',
            'Passport records are read from the chain, where they are public. On login the service stores the login challenge used (the identifier and its second, so that it is not used twice) and a session record: token id, owner account, session id, JWT id, login and expiry times, renewals, and when and why it was closed (logout, revocation, superseded). On HOLA verification it stores the token id and nonce of each verified line. Per client IP address it keeps a rate-limit counter, and per passport a request-quota counter.',
          ),
          section(
            'Logs',
            `${accessLogText(facts)} ${auditLogText(facts)} Bodies, headers, tokens and signatures are not logged, nor client addresses, except in a warning (at most one per 10 seconds) naming an address refused connections beyond HTTP_MAX_CONNECTIONS_PER_ADDRESS.`,
          ),
          section(
            'Sharing',
            'Nothing is sold or shared. When a passport holder enables it, a successful HOLA self-test sends a signed notification to the webhook URL the holder published in their own passport.',
          ),
          section('Cookies and tracking', 'None. Authentication uses only the Authorization header.'),
        ],
        contact,
      };
    case 'data-retention':
      return {
        title: `${APP_NAME}: data retention`,
        version: APP_VERSION,
        summary:
          'Everything the service stores expires on its own; nothing is kept longer than its purpose needs.',
        sections: [
          section(
            'Sessions',
            `Kept until the session ends, at most ${facts.sessionTtlSeconds} seconds after login (SESSION_TTL_SECONDS; earlier when the passport's not_after comes first; the tokens renewed within it end with it), or is closed by logout or revocation; then deleted by the next sweep (every 60 seconds).`,
          ),
          section(
            'Replay records',
            `The token id and nonce of each verified HOLA line are kept ${replayRecordSeconds(facts)} seconds after the line's timestamp (24 hours, the widest freshness window, plus the allowed future skew and a 60-second margin), whatever window the caller chose; a used login challenge, 360 seconds past its second. Then swept.`,
          ),
          section(
            'Rate-limit counters',
            'One token bucket per client address, and one per passport for JWT routes, each dropped once it has been idle long enough to be full again.',
          ),
          section(
            'Chain data',
            'Passport records are cached for at most a few seconds; the chain remains the source of truth.',
          ),
          section(
            'Logs',
            'Written to standard output; how long they are kept is decided by the operator of this deployment.',
          ),
        ],
        contact,
      };
    case 'why-identyclaw':
      return {
        title: 'Why passports for agents',
        version: APP_VERSION,
        summary:
          'Agents need to know who they talk to. A passport gives each agent a stable, checkable identity without a central account database.',
        sections: [
          section(
            'Verifiable by anyone',
            'A HOLA line is signed with the key that owns the passport on-chain, so any peer can check it, through this API or on its own.',
          ),
          section(
            'No key registry',
            'Ownership follows the chain: transferring a passport moves its identity to the new key, with no separate registration.',
          ),
          section(
            'Short-lived credentials',
            'Logins yield JWTs valid for an hour at most, signed with the server passport key so they can be checked against the chain too.',
          ),
          section(
            'Delegation',
            'A passport holder can authorise subagents with their own keys, checked statelessly with /api/isauthorizedsigner.',
          ),
        ],
        contact,
      };
  }
}
