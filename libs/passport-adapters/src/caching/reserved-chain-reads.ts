/**
 * Chain reads that may use the part of a reader's in-flight budget the others leave free. A chain
 * reader bounds its reads in flight (the NEAR one: 64, then `busy`); without a reserve, anonymous
 * lookups of ids nobody asked about could hold every slot while the node is slow, and the session
 * re-checks of logged-in holders then failed with 503 (a probe: 70 unauthenticated lookups of random
 * ids took all 64 slots for 5 s). Reads started inside `withReservedChainReads` (the bearer tier's
 * re-check of a holder's passport) may use the reserve; every other read stops short of it.
 * The mark travels with the asynchronous context of the read (AsyncLocalStorage), so it reaches the
 * transport through the cache and the reader without a parameter on the port.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const reserved = new AsyncLocalStorage<true>();

/** Runs `read` with access to the reserved part of the chain reader's in-flight budget. */
export function withReservedChainReads<T>(read: () => T): T {
  return reserved.run(true, read);
}

/** Whether the read being started now may use the reserve. */
export function mayUseReservedChainReads(): boolean {
  return reserved.getStore() === true;
}
