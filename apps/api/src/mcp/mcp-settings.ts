/**
 * What the MCP adapter reads from the app configuration (resolutions §9: PUBLIC_BASE_URL,
 * MCP_MAX_SESSIONS, MCP_SESSION_TTL_MS; and MCP_MAX_SESSIONS_PER_ADDRESS) and the rate limits of the
 * MCP surface, which both protocol eras share (resolutions §7).
 */
import { type AppConfig } from '../config/app-config.js';

/** The narrow view of AppConfig the MCP code depends on. */
export type McpSettings = Pick<
  AppConfig,
  'publicBaseUrl' | 'mcpMaxSessions' | 'mcpMaxSessionsPerAddress' | 'mcpSessionTtlMs'
>;

/** Rate limits of the MCP surface per client address (spec: Limits; resolutions §7). */
export const MCP_RATE_LIMITS = {
  /** Requests to /mcp: burst 200, refilled at the public sustained rate (1101 per minute). */
  transport: { capacity: 200, refillPerMs: 1101 / 60_000 },
  /** `tools/call` messages: 100 per minute. */
  toolCalls: { capacity: 100, refillPerMs: 100 / 60_000 },
} as const;
