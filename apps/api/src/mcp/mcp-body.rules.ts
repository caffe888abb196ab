/**
 * What /mcp refuses of a POST body's shape before either SDK reads it, and before a batch spends the
 * burst: a batch of more than the SDK's 100 messages (the SDK refuses it, after the batch had taken its
 * tokens), nesting deeper than the SDKs' recursive schema checks survive, and a batch whose requests
 * share an id (the SDK answered only one of them, and a client could not tell which answer was whose),
 * a body wider than the SDKs check cheaply, and a numeric request id that is not a safe integer.
 */
import { MCP_MAX_BATCH_MESSAGES, MCP_MAX_JSON_DEPTH, MCP_MAX_JSON_NODES } from './mcp-settings.js';

/** Why the body is refused (the rest of an `Invalid Request: …` message), or null when its shape is fine. */
export function bodyShapeProblem(body: unknown): string | null {
  if (Array.isArray(body) && body.length > MCP_MAX_BATCH_MESSAGES)
    return `a batch holds at most ${MCP_MAX_BATCH_MESSAGES} messages`;
  if (nestsDeeperThan(body, MCP_MAX_JSON_DEPTH))
    return `the body nests deeper than ${MCP_MAX_JSON_DEPTH} levels`;
  if (holdsMoreNodesThan(body, MCP_MAX_JSON_NODES))
    return `the body holds more than ${MCP_MAX_JSON_NODES} object members and array items in all`;
  const shared = sharedBatchId(body);
  if (shared) return `batch members [${shared[0]}] and [${shared[1]}] share one id`;
  return hasInexactRequestId(body)
    ? 'a request id is a string or an integer of at most 2^53 - 1 in magnitude'
    : null;
}

/**
 * Whether a request of the body has a numeric id that is not a safe integer: MCP ids are strings or
 * integers, and one past 2^53 has already been rounded by JSON.parse, so echoing it back (as the SDK's
 * refusal did) names another request. Refused here with id null, as JSON-RPC asks when the id cannot be read.
 */
export function hasInexactRequestId(body: unknown): boolean {
  for (const message of Array.isArray(body) ? body : [body]) {
    const id = requestIdOf(message);
    if (typeof id === 'number' && !Number.isSafeInteger(id)) return true;
  }
  return false;
}

/** Whether `value` nests arrays and objects more than `maxDepth` levels (`{}` is one); any depth is safe to ask. */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  const pending: unknown[] = [value];
  const depths: number[] = [0];
  while (pending.length > 0) {
    const node = pending.pop();
    const depth = depths.pop() as number;
    if (typeof node !== 'object' || node === null) continue;
    if (depth + 1 > maxDepth) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child !== 'object' || child === null) continue;
      pending.push(child);
      depths.push(depth + 1);
    }
  }
  return false;
}

/** Whether `value` holds more than `maxNodes` object members and array items in all (it stops counting there). */
export function holdsMoreNodesThan(value: unknown, maxNodes: number): boolean {
  const pending: unknown[] = [value];
  let nodes = 0;
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) continue;
    const children = Array.isArray(node) ? node : Object.values(node);
    nodes += children.length;
    if (nodes > maxNodes) return true;
    for (const child of children) if (typeof child === 'object' && child !== null) pending.push(child);
  }
  return false;
}

/**
 * The indexes of the first two requests of a batch that share an id (`1` and `"1"` differ, as JSON-RPC
 * compares them), or null. Notifications and replies carry no request id and are not counted.
 */
export function sharedBatchId(body: unknown): readonly [number, number] | null {
  if (!Array.isArray(body)) return null;
  const seen = new Map<string, number>();
  for (const [index, message] of body.entries()) {
    const id = requestIdOf(message);
    if (id === undefined) continue;
    const key = `${typeof id}:${id}`;
    const first = seen.get(key);
    if (first !== undefined) return [first, index];
    seen.set(key, index);
  }
  return null;
}

/** The id of a JSON-RPC request (a method and a string or number id), or undefined: notifications, replies and other shapes have none. */
export function requestIdOf(message: unknown): string | number | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { method, id } = message as { method?: unknown; id?: unknown };
  return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number') ? id : undefined;
}
