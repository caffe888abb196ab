/**
 * The ids of the requests a local session is serving now. The v1 transport answers a request on the POST
 * that carried it by looking its id up in one map per session, so a second POST reusing an id still in
 * progress took over the first one's entry: the first never got its answer (its connection kept open by
 * the SDK's keep-alives until the session ended, past every timeout) and the second could get the
 * first's (a probe: two reads with id 7, B answered with A's document, A with nothing). Such a POST is
 * refused instead. An id is held until its POST has been served, and, when the transport still serves it
 * then (its client left, its handler runs on), until the transport has answered it: a client that gave
 * up on a request and sent it again with its id while the first was still being served would otherwise
 * meet the takeover again (a review). Ids compare as JSON-RPC compares them: `1` and `"1"` differ.
 */
import { requestIdOf } from './mcp-body.rules.js';

/** The ids each session's requests hold, each with the claim holding it. */
const inFlight = new WeakMap<object, Map<string | number, symbol>>();
/** Ids whose POST has ended while the transport still serves them: freed once it no longer does. */
const awaitingAnswer = new WeakMap<object, Set<string | number>>();

/** The ids of the requests (not notifications, not replies) in a POST body. */
export function requestIdsOf(body: unknown): Array<string | number> {
  const ids: Array<string | number> = [];
  for (const message of Array.isArray(body) ? body : [body]) {
    const id = requestIdOf(message);
    if (id !== undefined) ids.push(id);
  }
  return ids;
}

export type RequestIdClaim =
  | {
      readonly claimed: true;
      /**
       * Ends the claim: its ids are free again, but those `stillServed` names (default none), which are
       * freed when the transport has answered them (`releaseIdsOnAnswer`).
       */
      readonly release: (stillServed?: (id: string | number) => boolean) => void;
    }
  | { readonly claimed: false; readonly id: string | number };

/**
 * Claims `ids` on `session` (the session's transport), all or none: the first id another request of the
 * session still holds, or the claim.
 */
export function claimRequestIds(session: object, ids: ReadonlyArray<string | number>): RequestIdClaim {
  let held = inFlight.get(session);
  for (const id of ids) if (held?.has(id)) return { claimed: false, id };
  if (ids.length === 0) return { claimed: true, release: () => undefined };
  if (!held) inFlight.set(session, (held = new Map()));
  const map = held;
  const token = Symbol('claim');
  for (const id of ids) map.set(id, token);
  let released = false;
  return {
    claimed: true,
    release: (stillServed) => {
      if (released) return;
      released = true;
      for (const id of ids) {
        if (map.get(id) !== token) continue;
        if (!stillServed?.(id)) map.delete(id);
        else {
          let waiting = awaitingAnswer.get(session);
          if (!waiting) awaitingAnswer.set(session, (waiting = new Set()));
          waiting.add(id);
        }
      }
    },
  };
}

interface AnsweringTransport {
  send(message: unknown, options?: unknown): Promise<void>;
}

const watched = new WeakSet<object>();

/**
 * After each message `transport` sends, frees the ids it no longer serves among those whose POST ended
 * before their answer (once per transport; a batch's ids leave its map together, with its last answer).
 */
export function releaseIdsOnAnswer(transport: AnsweringTransport): void {
  if (watched.has(transport)) return;
  watched.add(transport);
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    try {
      return await send(message, options);
    } finally {
      const waiting = awaitingAnswer.get(transport);
      if (waiting !== undefined && waiting.size > 0)
        for (const id of waiting) {
          if (transportServes(transport, id)) continue;
          waiting.delete(id);
          inFlight.get(transport)?.delete(id);
        }
    }
  };
}

/**
 * Whether the v1 transport still holds request `id` (taken in, not yet answered). Its map is internal:
 * without it, false (the id is then freed with its POST).
 */
export function transportServes(transport: object, id: string | number): boolean {
  const inner = (transport as { _webStandardTransport?: { _requestToStreamMapping?: unknown } })
    ._webStandardTransport?._requestToStreamMapping;
  return inner instanceof Map && inner.has(id);
}
