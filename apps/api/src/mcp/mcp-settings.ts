/** Rate limits of the MCP surface per client address (spec: Limits; docs/protocol.md §7). */
export const MCP_RATE_LIMITS = {
  /** Requests to /mcp: burst 200, refilled at the public sustained rate (1101 per minute). */
  transport: { capacity: 200, refillPerMs: 1101 / 60_000 },
  /** `tools/call` messages: 100 per minute. */
  toolCalls: { capacity: 100, refillPerMs: 100 / 60_000 },
} as const;
