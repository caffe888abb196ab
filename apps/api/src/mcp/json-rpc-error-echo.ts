/**
 * The MCP SDKs' error answers quote what the client sent (an MCP-Protocol-Version, Mcp-Method or
 * Mcp-Name header, the body's method, the envelope's version) whole and as sent: a probe had an
 * 8 000-character header come back three times and C1 controls (U+009B, the 8-bit CSI) and bidi
 * overrides unescaped. Every string of such an answer's error is made printable and bounded here, as
 * the app's own echoes are (`printableText`).
 */
import { printableText } from '@passport/core/codecs';

/** The longest error message kept, and the longest string kept in its `data`. */
export const ECHO_MESSAGE_MAX = 512;
export const ECHO_DATA_STRING_MAX = 128;
/** Items kept of an array in `data`, and the depth below which `data` is dropped. */
const DATA_ARRAY_MAX = 16;
const DATA_DEPTH_MAX = 4;

/** `text` (a JSON-RPC answer body) with its error's message and data bounded and printable; other text as it was. */
export function boundedJsonRpcErrorText(text: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return text;
  const error = (parsed as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return text;
  const { message, data, ...rest } = error as { message?: unknown; data?: unknown };
  const bounded: Record<string, unknown> = { ...rest };
  if (message !== undefined)
    bounded.message = typeof message === 'string' ? printableText(message, ECHO_MESSAGE_MAX) : message;
  if (data !== undefined) bounded.data = boundedData(data, 0);
  return JSON.stringify({ ...(parsed as object), error: bounded });
}

function boundedData(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return printableText(value, ECHO_DATA_STRING_MAX);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= DATA_DEPTH_MAX) return null;
  if (Array.isArray(value)) return value.slice(0, DATA_ARRAY_MAX).map((item) => boundedData(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value)
      .slice(0, DATA_ARRAY_MAX)
      .map(([key, item]) => [printableText(key, ECHO_DATA_STRING_MAX), boundedData(item, depth + 1)]),
  );
}
