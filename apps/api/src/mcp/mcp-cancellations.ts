/**
 * `notifications/cancelled` are left out of what a sessioned POST hands the v1 SDK transport. Every tool
 * and resource here answers at once and holds no state, so a cancellation has nothing to stop; but the
 * transport, told that a request of a POST's stream is cancelled, never answers it and never ends that
 * stream (MCP lets a server ignore a cancellation): 150 POSTs could be held open until the 300 s
 * connection timeout, and one such POST would make a SIGTERM drain wait its whole timeout.
 */
/** A `notifications/cancelled` notification: with an `id` it would be a request, which is answered. */
const isCancellation = (message: unknown): boolean =>
  typeof message === 'object' &&
  message !== null &&
  (message as { method?: unknown }).method === 'notifications/cancelled' &&
  !('id' in message);

/** `body` without its cancellations; `undefined` when nothing else was in it (answer 202, as for a notification). */
export function withoutCancellations(body: unknown): unknown {
  if (Array.isArray(body)) {
    if (!body.some(isCancellation)) return body;
    const rest = body.filter((message) => !isCancellation(message));
    return rest.length > 0 ? rest : undefined;
  }
  return isCancellation(body) ? undefined : body;
}
