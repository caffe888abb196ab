/**
 * @module ports/replay-store.port
 * Single-use records: HOLA nonces (`<tokenId>|<NONCE>`) and used login challenges
 * (`login|<identifier>|<timestamp>`). The check and the record are one atomic step, on one
 * instance or many (Redis `SET NX PX`, SQLite `INSERT OR IGNORE`, a Map in memory).
 */

export type RecordOutcome =
  | { readonly recorded: true }
  | { readonly recorded: false; /** Unix ms when the key was first recorded. */ readonly firstSeenAtMs: number };

export interface ReplayStore {
  /**
   * Records `key` unless a live record exists. A record lives until `expiresAtMs`; after that the key
   * may be recorded again. Must be atomic: of N concurrent calls with one key exactly one is `recorded`.
   */
  recordIfAbsent(key: string, nowMs: number, expiresAtMs: number): Promise<RecordOutcome>;
}
