/**
 * @module ports/chain-reader.port
 * Everything the domain needs from the chain. Adapters: the local JSON ledger and NEAR JSON-RPC
 * (@passport/adapters), and an in-memory reader (this library) for tests and embedders; the contract
 * every adapter must meet is `describeChainReaderContract` (@passport/core/testing).
 */
import { crossCopyCheck } from '../errors/cross-copy.js';
import { type PassportRecord } from '../passport/passport.types.js';

export interface PageRequest {
  readonly fromIndex: number;
  readonly limit: number;
}

export interface ChainReader {
  /** The passport with this exact on-chain token id, or null when none exists. */
  getPassport(tokenId: string): Promise<PassportRecord | null>;
  /** Passports owned by an account, in chain order. */
  listPassportsByOwner(accountId: string, page: PageRequest): Promise<PassportRecord[]>;
  /** All passports of the contract, in chain order. */
  listPassports(page: PageRequest): Promise<PassportRecord[]>;
  /**
   * Full-access Ed25519 public keys (32 bytes each) of a named account; [] when the account has none
   * or does not exist. Implicit (64-hex) accounts never reach this: their id is their key. A reader may
   * stop after `MAX_OWNER_KEYS + 1` keys: an account holding more signs with none of them.
   */
  getAccountKeys(accountId: string): Promise<Uint8Array[]>;
  /** Chain time in Unix milliseconds (the latest final block's timestamp; the ledger uses its clock). */
  chainTimeMs(): Promise<number>;
  /** The contract id this reader serves. */
  readonly contractId: string;
}

/**
 * A reader with a cache it can consult on the calling stack: a hot path (the bearer tier re-reads the
 * caller's passport on every request) takes a fresh cached answer without awaiting a promise.
 */
export interface CachedPassportPeek {
  /**
   * What `getPassport` would answer from the cache right now, or undefined when the answer is not
   * cached (absent, expired, or being read): then ask `getPassport`.
   */
  peekPassport(tokenId: string): PassportRecord | null | undefined;
}

export function canPeekPassport(reader: ChainReader): reader is ChainReader & CachedPassportPeek {
  return typeof (reader as Partial<CachedPassportPeek>).peekPassport === 'function';
}

/**
 * A reader with a cache that can be passed by: `rereadPassport` asks the chain again whatever the cache
 * holds, and caches the new answer. For a decision that must not rest on one answer of one node (closing
 * a session because its passport was not found or changed hands: a lagging RPC node answers from an
 * older block).
 */
export interface PassportReread {
  rereadPassport(tokenId: string): Promise<PassportRecord | null>;
}

export function canRereadPassport(reader: ChainReader): reader is ChainReader & PassportReread {
  return typeof (reader as Partial<PassportReread>).rereadPassport === 'function';
}

/** Thrown by chain adapters when the chain cannot be read (timeout, RPC error, malformed result). */
export class ChainUnavailableError extends Error {
  override readonly name = 'ChainUnavailableError';
  constructor(
    /** Client-safe short reason, e.g. `timeout`, `rpc_error`, `malformed_result`. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`chain unavailable: ${reason}`, options);
  }
}

/** A `ChainUnavailableError` of this copy of the package or of another copy (`instanceof` is false then). */
export const isChainUnavailableError = crossCopyCheck(
  ChainUnavailableError,
  '@passport/core.ChainUnavailableError',
);
