/**
 * @module memory/memory-chain.reader
 * An in-memory ChainReader for tests and embedders: seeded with PassportRecords and the keys of named
 * accounts, and changeable afterwards (add, replace, revoke, remove, set chain time, simulate an
 * outage) so that tests can observe how the domain reacts to chain changes.
 */
import { ChainUnavailableError, type ChainReader, type PageRequest } from '../ports/chain-reader.port.js';
import { systemClock, type Clock } from '../ports/clock.port.js';
import { type PassportRecord } from '../passport/passport.types.js';

export interface MemoryChainOptions {
  readonly contractId: string;
  readonly passports?: readonly PassportRecord[] | undefined;
  /** Full-access Ed25519 public keys (32 bytes each) of named accounts. */
  readonly accounts?: Readonly<Record<string, readonly Uint8Array[]>> | undefined;
  /**
   * Fixed chain time in Unix ms, or a Clock to follow; default: the system clock (`systemClock`), as a
   * live chain's time would be. (Until 2026-11-27 it was 0, under which a passport whose `not_after` had
   * passed still verified and one with a `not_before` did not: an integrator's review.)
   */
  readonly chainTime?: number | Clock | undefined;
}

export class MemoryChainReader implements ChainReader {
  readonly contractId: string;
  /** Insertion order is chain order; replacing a record keeps its position. */
  private readonly passports = new Map<string, PassportRecord>();
  private readonly accounts = new Map<string, Uint8Array[]>();
  private chainTime: number | Clock;
  private outage: string | null = null;

  constructor(options: MemoryChainOptions) {
    this.contractId = options.contractId;
    for (const record of options.passports ?? []) this.addPassport(record);
    for (const [accountId, keys] of Object.entries(options.accounts ?? {}))
      this.setAccountKeys(accountId, keys);
    this.chainTime = options.chainTime ?? systemClock;
  }

  // --- ChainReader ---

  async getPassport(tokenId: string): Promise<PassportRecord | null> {
    this.assertAvailable();
    return this.passports.get(tokenId) ?? null;
  }

  async listPassportsByOwner(accountId: string, page: PageRequest): Promise<PassportRecord[]> {
    this.assertAvailable();
    return slice(
      [...this.passports.values()].filter((p) => p.ownerId === accountId),
      page,
    );
  }

  async listPassports(page: PageRequest): Promise<PassportRecord[]> {
    this.assertAvailable();
    return slice([...this.passports.values()], page);
  }

  async getAccountKeys(accountId: string): Promise<Uint8Array[]> {
    this.assertAvailable();
    return (this.accounts.get(accountId) ?? []).map((k) => Uint8Array.from(k));
  }

  async chainTimeMs(): Promise<number> {
    this.assertAvailable();
    return typeof this.chainTime === 'number' ? this.chainTime : this.chainTime.nowMs();
  }

  // --- Test controls ---

  /** Adds a new passport at the end of the chain; throws if the token id exists (use `replacePassport`). */
  addPassport(record: PassportRecord): void {
    if (this.passports.has(record.tokenId)) throw new Error(`passport ${record.tokenId} already exists`);
    this.passports.set(record.tokenId, freeze(record));
  }

  /** Replaces (or adds) a passport, e.g. a transfer to a new owner or new metadata. */
  replacePassport(record: PassportRecord): void {
    this.passports.set(record.tokenId, freeze(record));
  }

  /** Marks a passport revoked (the record's flag and the NEAR-style `revoked: "true"` metadata). */
  revokePassport(tokenId: string): void {
    const record = this.passports.get(tokenId);
    if (!record) throw new Error(`passport ${tokenId} does not exist`);
    this.passports.set(
      tokenId,
      freeze({ ...record, revoked: true, metadata: { ...record.metadata, revoked: 'true' } }),
    );
  }

  removePassport(tokenId: string): boolean {
    return this.passports.delete(tokenId);
  }

  setAccountKeys(accountId: string, keys: readonly Uint8Array[]): void {
    for (const key of keys)
      if (key.length !== 32) throw new Error(`account ${accountId}: keys must be 32 bytes`);
    this.accounts.set(
      accountId,
      keys.map((k) => Uint8Array.from(k)),
    );
  }

  setChainTime(chainTime: number | Clock): void {
    this.chainTime = chainTime;
  }

  /** While set, every read throws ChainUnavailableError(reason); `null` restores the chain. */
  setUnavailable(reason: string | null): void {
    this.outage = reason;
  }

  private assertAvailable(): void {
    if (this.outage !== null) throw new ChainUnavailableError(this.outage);
  }
}

function slice(records: PassportRecord[], page: PageRequest): PassportRecord[] {
  const from = Math.max(0, Math.floor(page.fromIndex));
  const limit = Math.max(0, Math.floor(page.limit));
  return records.slice(from, from + limit);
}

/** Stored records are frozen copies, so a test mutating its fixture cannot change the chain behind the reader's back. */
function freeze(record: PassportRecord): PassportRecord {
  return Object.freeze({ ...record, metadata: Object.freeze({ ...record.metadata }) });
}
