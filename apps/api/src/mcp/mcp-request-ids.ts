/**
 * The ids of the requests a local session is serving now. The v1 transport answers a request on the POST
 * that carried it by looking its id up in one map per session, so a second POST reusing an id still in
 * progress took over the first one's entry: the first never got its answer (its connection kept open by
 * the SDK's keep-alives until the session ended, past every timeout) and the second could get the
 * first's (a probe: two reads with id 7, B answered with A's document, A with nothing). Such a POST is
 * refused instead. Ids compare as JSON-RPC compares them: `1` and `"1"` differ.
 */
const inFlight = new WeakMap<object, Set<string | number>>();

/** The ids of the requests (not notifications, not replies) in a POST body. */
export function requestIdsOf(body: unknown): Array<string | number> {
  const ids: Array<string | number> = [];
  for (const message of Array.isArray(body) ? body : [body]) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, id } = message as { method?: unknown; id?: unknown };
    if (typeof method === 'string' && (typeof id === 'string' || typeof id === 'number')) ids.push(id);
  }
  return ids;
}

export type RequestIdClaim =
  | { readonly claimed: true; readonly release: () => void }
  | { readonly claimed: false; readonly id: string | number };

/**
 * Claims `ids` on `session` (any object standing for one session: its transport) until `release`, all or
 * none: the first id another request of the session still holds, or the claim.
 */
export function claimRequestIds(session: object, ids: ReadonlyArray<string | number>): RequestIdClaim {
  let held = inFlight.get(session);
  for (const id of ids) if (held?.has(id)) return { claimed: false, id };
  if (ids.length === 0) return { claimed: true, release: () => undefined };
  if (!held) inFlight.set(session, (held = new Set()));
  const set = held;
  for (const id of ids) set.add(id);
  let released = false;
  return {
    claimed: true,
    release: () => {
      if (released) return;
      released = true;
      for (const id of ids) set.delete(id);
    },
  };
}
