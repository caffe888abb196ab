/**
 * A task augmentation (`params.task`, MCP 2025-11-25) on a request other than `tools/call` is dropped
 * before a sessioned POST reaches the v1 SDK. The revision says a receiver that declares no task
 * capability for a request type processes it normally, ignoring the task; this server declares none,
 * and the SDK answered such a `tools/list`, `resources/read` or `ping` -32603 "Server does not support
 * task creation" (a probe). `tools/call` keeps its task: each tool says `taskSupport: "forbidden"`, and
 * such a call is -32601 (mcp-request-params.ts).
 */
interface JsonRpcMessage {
  readonly method?: unknown;
  readonly params?: unknown;
}

const hasIgnoredTask = (message: unknown): boolean => {
  if (typeof message !== 'object' || message === null) return false;
  const { method, params } = message as JsonRpcMessage;
  return (
    typeof method === 'string' &&
    method !== 'tools/call' &&
    typeof params === 'object' &&
    params !== null &&
    Object.hasOwn(params, 'task')
  );
};

const withoutTask = (message: unknown): unknown => {
  if (!hasIgnoredTask(message)) return message;
  const { task: _ignored, ...params } = (message as { params: Record<string, unknown> }).params;
  return { ...(message as object), params };
};

/** `body` (one message or a batch) with the task of every request but `tools/call` left out. */
export function withoutIgnoredTasks(body: unknown): unknown {
  if (Array.isArray(body)) return body.some(hasIgnoredTask) ? body.map(withoutTask) : body;
  return withoutTask(body);
}
