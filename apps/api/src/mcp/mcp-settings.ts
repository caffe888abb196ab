/** Rate limits of the MCP surface per client address (spec: Limits; docs/protocol.md §7). */
/**
 * Tool calls and resource reads in one batch (revisions up to 2025-03-26 batch): one answer holds them
 * all, and a read of the OpenAPI document is ~0.4 MB of text (a batch of 100 such reads was answered
 * 76 MB at once and held the event loop 0.85 s, measured).
 */
export const MCP_MAX_READS_PER_BATCH = 16;

export const MCP_RATE_LIMITS = {
  /** Requests to /mcp: burst 200, refilled at the public sustained rate (1101 per minute). */
  transport: { capacity: 200, refillPerMs: 1101 / 60_000 },
  /** `tools/call` messages: 100 per minute. */
  toolCalls: { capacity: 100, refillPerMs: 100 / 60_000 },
} as const;
