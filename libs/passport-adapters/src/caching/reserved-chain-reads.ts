/**
 * Chain reads that may use the part of a reader's in-flight budget the others leave free. A chain
 * reader bounds its reads in flight (the NEAR one: 64, then `busy`); without a reserve, anonymous
 * lookups of ids nobody asked about could hold every slot while the node is slow, and the session
 * re-checks of logged-in holders would then fail with 503 (70 unauthenticated lookups of random ids
 * took all 64 slots for 5 s). Reads started inside `withReservedChainReads` (the bearer tier's
 * re-check of a holder's passport) may use the reserve; every other read stops short of it.
 *
 * The mark is a counter held while `read` runs, not an AsyncLocalStorage: on Node 20 the first
 * AsyncLocalStorage turns on promise hooks for the whole process (awaits measured 2.5 times slower).
 * It serves because a transport decides at the call's start, which the cache, the reader and
 * near-api-js 7.2 reach on the calling stack (the reserve's test fails if that changes).
 */
let reservedDepth = 0;

/** Runs `read`; the chain reads it starts on this stack may use the reserved part of the budget. */
export function withReservedChainReads<T>(read: () => T): T {
  reservedDepth++;
  try {
    return read();
  } finally {
    reservedDepth--;
  }
}

/** Whether the read being started now may use the reserve. */
export function mayUseReservedChainReads(): boolean {
  return reservedDepth > 0;
}
