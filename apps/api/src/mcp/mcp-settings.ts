/** Rate limits of the MCP surface per client address (spec: Limits; docs/protocol.md §7). */
/**
 * Tool calls and resource reads in one batch (revisions up to 2025-03-26 batch): one answer holds them
 * all (a batch of 100 reads of the OpenAPI document was answered 76 MB at once and held the event loop
 * 0.85 s, measured).
 */
export const MCP_MAX_READS_PER_BATCH = 16;

/**
 * Reads of the OpenAPI document (`openapi:swagger`, ~920 KB once escaped into an answer) in one batch:
 * 16 of them made a 1.4 KB request a 12.5 MB answer, and six such batches at once held the event loop
 * 0.9 s (measured). Two per batch keep one answer near 1.6 MB.
 */
export const MCP_MAX_OPENAPI_READS_PER_BATCH = 2;

/** The resource whose reads `MCP_MAX_OPENAPI_READS_PER_BATCH` counts. */
export const MCP_OPENAPI_RESOURCE_URI = 'openapi:swagger';

/**
 * The largest `initialize` params (capabilities, clientInfo) a session takes, in bytes of JSON: the
 * SDK keeps them for the session's life, and 60 KB of `capabilities.experimental` held ~240 KB of heap
 * per session (~54 KB for a usual initialize, measured), 240 MB at the session cap. A usual initialize
 * is a few hundred bytes.
 */
export const MCP_MAX_INITIALIZE_PARAMS_BYTES = 8192;

/**
 * How deep a JSON-RPC body to /mcp may nest: both SDKs check a message with recursive schema code, so
 * a reply or `_meta` nested some thousands of levels overflowed the stack, and the v1 SDK wrote the
 * RangeError into `error.data`. No MCP message of this server's surface comes near it.
 */
export const MCP_MAX_JSON_DEPTH = 64;

/**
 * Object members and array items a JSON-RPC body to /mcp may hold in all. Both SDKs check each member
 * of `params` and `_meta` with schema code at ~6 µs apiece, several times over: one message of 5 400
 * `_meta` keys (53 KB) held the event loop 35–65 ms for one burst token, against 2–5 ms for a plain one,
 * and two addresses could take all of it (a complexity probe). A batch of 100 tool calls holds ~800.
 */
export const MCP_MAX_JSON_NODES = 2048;

/**
 * Messages in one 2025-03-26 batch: the v1 SDK's own bound (it answers more with 400 -32600), checked
 * before the batch takes one /mcp burst token per message. Below the burst (200), so a batch that
 * passes it can always fit a full bucket.
 */
export const MCP_MAX_BATCH_MESSAGES = 100;

export const MCP_RATE_LIMITS = {
  /** Requests to /mcp: burst 200, refilled at the public sustained rate (1101 per minute). */
  transport: { capacity: 200, refillPerMs: 1101 / 60_000 },
  /** `tools/call` messages: 100 per minute. */
  toolCalls: { capacity: 100, refillPerMs: 100 / 60_000 },
} as const;

/** An MCP answer (a result or an error) answers one exchange: no cache keeps it (a 404 is cacheable by default). */
export const MCP_CACHE_CONTROL = 'no-store';
