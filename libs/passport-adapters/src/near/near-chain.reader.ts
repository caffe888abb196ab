/**
 * ChainReader over NEAR JSON-RPC with near-api-js 7.2 (view calls only; engineering anchors §6).
 * Contract views: `passport_token {token_id}`, `passport_tokens_for_owner {account_id, from_index,
 * limit}`, `passport_tokens {from_index, limit}` (names configurable); keys through
 * `view_access_key_list` (full-access Ed25519 keys only); chain time from the final block.
 * Every answer is validated before use: anything unexpected is `ChainUnavailableError('malformed_result')`,
 * upstream failures are `ChainUnavailableError('rpc_error' | 'rate_limited' | 'timeout')` and never carry
 * upstream text to clients (the cause is kept for logs). Reads use `final` finality: a passport is what
 * the chain has finalised, not an optimistic block that may still change. Requests go out through
 * `BoundedJsonRpcProvider`: one deadline per read (the socket is closed when it passes), a cap on an
 * answer's size and on reads in flight.
 */
import {
  ChainUnavailableError,
  type ChainReader,
  type PassportMetadata,
  type PassportRecord,
} from '@passport/core';
import { type PageRequest } from '@passport/core/ports';
import { decodeBase58 } from '@passport/core';
import { MAX_OWNER_KEYS } from '@passport/core/passport';
import { isNearAccountId } from '@passport/core/credentials';
import { BoundedJsonRpcProvider, UnknownAccountError } from './bounded-json-rpc.provider.js';

export interface NearViewMethods {
  readonly token: string;
  readonly tokensForOwner: string;
  readonly tokens: string;
}

export const DEFAULT_NEAR_VIEW_METHODS: NearViewMethods = {
  token: 'passport_token',
  tokensForOwner: 'passport_tokens_for_owner',
  tokens: 'passport_tokens',
};

export interface NearChainReaderOptions {
  readonly rpcUrl: string;
  readonly contractId: string;
  readonly methods?: Partial<NearViewMethods> | undefined;
  /** One deadline per read, retries included (default 5000 ms); the request is aborted when it passes. */
  readonly timeoutMs?: number | undefined;
  /** Largest answer read (default 4 MiB: a page of 100 tokens as a byte array is ~4 bytes per byte). */
  readonly maxResponseBytes?: number | undefined;
  /** Reads in flight at once (default 64); one beyond them fails at once with `busy`. */
  readonly maxInFlight?: number | undefined;
  /**
   * Of those, how many only reads inside `withReservedChainReads` may take (default a quarter: 16):
   * session re-checks keep working while anonymous lookups fill the rest.
   */
  readonly reservedInFlight?: number | undefined;
  /** Attempts per request for retryable upstream answers (HTTP 500/408/503, network errors). At least 1. */
  readonly attempts?: number | undefined;
  /** First wait between attempts, in ms (then ×1.5). */
  readonly retryWaitMs?: number | undefined;
}

/** Upper bound of a page asked of the contract (NEP-171 enumeration views limit pages themselves). */
const MAX_PAGE = 100;
const MAX_METADATA_KEYS = 64;
const MAX_METADATA_VALUE = 8192;
/**
 * Bounds of one reader. An answer is held whole while it is parsed (a byte-array answer takes about
 * four times its size in memory), so the worst case is about `maxInFlight` × 4 × `maxResponseBytes`
 * against a node that answers every read at the cap (measured: ~30 MB per 8 MiB answer).
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
export const DEFAULT_MAX_IN_FLIGHT = 64;

export class NearChainReader implements ChainReader {
  readonly contractId: string;
  private readonly provider: BoundedJsonRpcProvider;
  private readonly methods: NearViewMethods;

  constructor(opts: NearChainReaderOptions) {
    this.contractId = opts.contractId;
    this.methods = { ...DEFAULT_NEAR_VIEW_METHODS, ...opts.methods };
    this.provider = new BoundedJsonRpcProvider({
      url: opts.rpcUrl,
      timeoutMs: opts.timeoutMs ?? 5000,
      attempts: Math.max(1, opts.attempts ?? 2),
      retryWaitMs: opts.retryWaitMs ?? 100,
      maxResponseBytes: opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      maxInFlight: opts.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT,
      reservedInFlight: opts.reservedInFlight,
    });
  }

  /** Reads waiting for the node now. */
  get readsInFlight(): number {
    return this.provider.callsInFlight;
  }

  async getPassport(tokenId: string): Promise<PassportRecord | null> {
    const result = await this.view(this.methods.token, { token_id: tokenId });
    if (result === null || result === undefined) return null;
    const record = this.toRecord(result);
    // A contract answering with another token than asked is broken, not "found".
    if (record.tokenId !== tokenId) throw new ChainUnavailableError('malformed_result');
    return record;
  }

  async listPassportsByOwner(accountId: string, page: PageRequest): Promise<PassportRecord[]> {
    const limit = clampLimit(page.limit);
    const result = await this.view(this.methods.tokensForOwner, {
      account_id: accountId,
      from_index: String(Math.max(0, Math.floor(page.fromIndex))),
      limit,
    });
    const records = this.toRecordList(result, limit);
    // A contract listing another account's passport under this one is broken (a probe: a login by
    // alice's account, signed with mallory's key, got a token for mallory's passport).
    if (records.some((record) => record.ownerId !== accountId))
      throw new ChainUnavailableError('malformed_result');
    return records;
  }

  async listPassports(page: PageRequest): Promise<PassportRecord[]> {
    const limit = clampLimit(page.limit);
    const result = await this.view(this.methods.tokens, {
      from_index: String(Math.max(0, Math.floor(page.fromIndex))),
      limit,
    });
    return this.toRecordList(result, limit);
  }

  async getAccountKeys(accountId: string): Promise<Uint8Array[]> {
    let list: unknown;
    try {
      list = await this.provider.viewAccessKeyList({ accountId, finalityQuery: { finality: 'final' } });
    } catch (error) {
      if (error instanceof UnknownAccountError) return [];
      throw toChainError(error);
    }
    const keys = (list as { keys?: unknown })?.keys;
    if (!Array.isArray(keys)) throw new ChainUnavailableError('malformed_result');
    const out: Uint8Array[] = [];
    for (const item of keys) {
      if (typeof item !== 'object' || item === null) throw new ChainUnavailableError('malformed_result');
      const { public_key: publicKey, access_key: accessKey } = item as {
        public_key?: unknown;
        access_key?: { permission?: unknown };
      };
      if (typeof publicKey !== 'string' || typeof accessKey !== 'object' || accessKey === null) {
        throw new ChainUnavailableError('malformed_result');
      }
      // Function-call keys cannot act for the account; secp256k1 keys are not Ed25519.
      if (accessKey.permission !== 'FullAccess' || !publicKey.startsWith('ed25519:')) continue;
      const bytes = decodeBase58(publicKey.slice('ed25519:'.length));
      if (!bytes || bytes.length !== 32) throw new ChainUnavailableError('malformed_result');
      out.push(bytes);
      // One key past the bound is enough to know the account signs with none (resolveOwnerKeys): the
      // rest is neither decoded nor cached (30 000 keys were, and copied on every cache hit).
      if (out.length > MAX_OWNER_KEYS) break;
    }
    return out;
  }

  async chainTimeMs(): Promise<number> {
    let block: unknown;
    try {
      block = await this.provider.viewBlock({ finality: 'final' });
    } catch (error) {
      throw toChainError(error);
    }
    const header = (block as { header?: { timestamp_nanosec?: unknown; timestamp?: unknown } })?.header;
    const nanos = header?.timestamp_nanosec ?? header?.timestamp;
    let ms: number;
    if (typeof nanos === 'string' && /^\d{1,25}$/.test(nanos)) ms = Number(BigInt(nanos) / 1_000_000n);
    else if (typeof nanos === 'number' && Number.isFinite(nanos) && nanos >= 0) ms = Math.floor(nanos / 1e6);
    else throw new ChainUnavailableError('malformed_result');
    if (!Number.isSafeInteger(ms) || ms <= 0) throw new ChainUnavailableError('malformed_result');
    return ms;
  }

  private async view(method: string, args: Record<string, unknown>): Promise<unknown> {
    let raw: { result?: unknown };
    try {
      raw = await this.provider.callFunctionRaw({
        contractId: this.contractId,
        method,
        args,
        blockQuery: { finality: 'final' },
      });
    } catch (error) {
      throw toChainError(error);
    }
    // Decode the byte array ourselves: callFunction returns non-JSON text as a string, which we must refuse.
    const bytes = raw?.result;
    if (!Array.isArray(bytes) || bytes.some((b) => !Number.isInteger(b) || b < 0 || b > 255)) {
      throw new ChainUnavailableError('malformed_result');
    }
    // Nothing at all is not JSON `null` (a view's "none"): a method that returns nothing (a misconfigured
    // view name) must not read as "no such passport", which closes sessions for good.
    if (bytes.length === 0) throw new ChainUnavailableError('malformed_result');
    try {
      return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes as number[])));
    } catch (error) {
      throw new ChainUnavailableError('malformed_result', { cause: error });
    }
  }

  /** A page of at most `limit` records: a node answering more than asked (16 000 for 1, a probe) is broken. */
  private toRecordList(result: unknown, limit: number): PassportRecord[] {
    if (!Array.isArray(result) || result.length > limit) throw new ChainUnavailableError('malformed_result');
    return result.map((token) => this.toRecord(token));
  }

  /** NEP-171-like token JSON → PassportRecord; `metadata.revoked === "true"` means revoked. */
  private toRecord(token: unknown): PassportRecord {
    if (typeof token !== 'object' || token === null || Array.isArray(token))
      throw new ChainUnavailableError('malformed_result');
    const { token_id: tokenId, owner_id: ownerId, metadata } = token as Record<string, unknown>;
    if (typeof tokenId !== 'string' || tokenId.length === 0 || tokenId.length > 256)
      throw new ChainUnavailableError('malformed_result');
    // A NEAR account id, as the chain allows them (a probe's node had `../admin`, `bob near` and a bidi
    // control taken as owners, and shown to clients as such).
    if (!isNearAccountId(ownerId)) throw new ChainUnavailableError('malformed_result');
    const clean: PassportMetadata = {};
    if (metadata !== undefined && metadata !== null) {
      if (typeof metadata !== 'object' || Array.isArray(metadata))
        throw new ChainUnavailableError('malformed_result');
      const entries = Object.entries(metadata as Record<string, unknown>);
      if (entries.length > MAX_METADATA_KEYS) throw new ChainUnavailableError('malformed_result');
      for (const [key, value] of entries) {
        // NEP-177 metadata has null for unset fields; keep strings only, refuse other types.
        if (value === null) continue;
        if (typeof value !== 'string' || value.length > MAX_METADATA_VALUE)
          throw new ChainUnavailableError('malformed_result');
        clean[key] = value;
      }
    }
    return {
      tokenId,
      ownerId,
      contractId: this.contractId,
      metadata: clean,
      revoked: clean.revoked === 'true',
    };
  }
}

function clampLimit(limit: number): number {
  return Math.min(MAX_PAGE, Math.max(0, Math.floor(limit)));
}

function toChainError(error: unknown): ChainUnavailableError {
  if (error instanceof ChainUnavailableError) return error;
  return new ChainUnavailableError('rpc_error', { cause: error });
}
