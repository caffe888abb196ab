/**
 * How long a replay record outlives the last moment its line (or login challenge) could be accepted.
 *
 * A call decides at the time it was made (its freshness check and the record's liveness both use it),
 * but the decision can come seconds later: a verification reads the chain first (up to its deadline, a
 * few seconds), and a store may wait for its write lock. Meanwhile another call, later by the clock, may
 * delete records that have expired by its own time (making room at the cap or at a sender's quota, or
 * a sweep). With a record that outlived the acceptance window by only 1 s, a probe saw the late call
 * find nothing and accept a used key again (the in-process memory store through a sender's quota). A
 * minute covers any decision the deadlines allow.
 */
export const REPLAY_DECISION_MARGIN_MS = 60_000;
