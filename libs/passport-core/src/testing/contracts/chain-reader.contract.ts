/**
 * The ChainReader contract: what every chain adapter must answer, and how (unknown tokens, records with
 * owner, contract and string metadata, family-root ids, revocation, chain time, paging by owner and in
 * all, full-access keys, changes seen without a restart). Passport conditions are computed with the
 * core's functions. The adapter under test is opened on `CHAIN_SEED` (its own way: a ledger file, a
 * node's state, a memory reader) and must be able to replace its passports as a mint or an edit would.
 * The repo runs it against every chain adapter it ships; an integrator runs it against their own.
 */
import { type ChainReader } from '../../ports/chain-reader.port.js';
import { type PassportRecord } from '../../passport/passport.types.js';
import { isPassportLive, isPassportRevoked } from '../../passport/index.js';
import { type ContractTestApi } from './contract-test-api.js';

/** A passport as the suite seeds it (the ledger file's shape). */
export interface ChainSeedPassport {
  readonly token_id: string;
  readonly owner_id: string;
  readonly metadata: Readonly<Record<string, string>>;
  readonly revoked?: boolean;
}

/** What the chain under test holds when the suite opens it. */
export interface ChainSeed {
  readonly contractId: string;
  /** The chain's time (a ledger's clock, a node's final block). */
  readonly chainTimeMs: number;
  /** In chain order. */
  readonly passports: readonly ChainSeedPassport[];
  /** Full-access Ed25519 public keys of each account, in order. */
  readonly accounts: Readonly<Record<string, readonly Uint8Array[]>>;
}

export interface ChainReaderFixture {
  readonly reader: ChainReader;
  /** Replaces the chain's passports (as a mint or an edit would); the reader may see it a little later. */
  replace(passports: readonly ChainSeedPassport[]): Promise<void>;
  /**
   * Replaces an account's full-access keys (a key added or deleted on chain); the reader may see it a
   * little later. Optional: a fixture without it leaves the suite's key-rotation test out.
   */
  replaceAccountKeys?(accountId: string, keys: readonly Uint8Array[]): Promise<void>;
  close(): void | Promise<void>;
}

export interface ChainReaderContractAdapter {
  readonly name: string;
  open(seed: ChainSeed): ChainReaderFixture | Promise<ChainReaderFixture>;
}

const KEY_A = new Uint8Array(32).fill(7);
const KEY_B = new Uint8Array(32).fill(9);
const OWNER_IMPLICIT = 'ab'.repeat(32);

/** The seed every reader's fixture loads; frozen, so no suite changes what the next one reads. */
export const CHAIN_SEED: ChainSeed = deepFreeze<ChainSeed>({
  contractId: 'passport.test.near',
  chainTimeMs: Date.UTC(2026, 0, 15, 12, 0, 0),
  passports: [
    {
      token_id: 'bhahbkbramax',
      owner_id: OWNER_IMPLICIT,
      metadata: { token_id: 'bhahbkbramax', not_after: '2027-01-01T00:00:00Z' },
    },
    {
      token_id: 'lhsrldbjsnlh',
      owner_id: 'alice.near',
      metadata: { token_id: 'lhsrldbjsnlh', not_after: '2026-01-01T00:00:00Z' },
    },
    {
      token_id: 'bjbvcjzqbdsj',
      owner_id: 'alice.near',
      metadata: { token_id: 'bjbvcjzqbdsj' },
      revoked: true,
    },
    { token_id: 'bc=local;sc=passport.test.near;id=devroot', owner_id: OWNER_IMPLICIT, metadata: {} },
  ],
  accounts: { 'alice.near': [KEY_A, KEY_B] },
});

/** Freezes `value` and every object and array in it (typed arrays cannot be frozen, and are left). */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** Retries an assertion until it passes or the timeout elapses (watchers and polls are asynchronous). */
async function eventually(assertion: () => Promise<void>, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await assertion();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

export function describeChainReaderContract(
  test: ContractTestApi,
  adapter: ChainReaderContractAdapter,
): void {
  const { describe, it, expect, beforeEach, afterEach } = test;

  describe(`ChainReader contract (${adapter.name})`, () => {
    let fx: ChainReaderFixture;
    beforeEach(async () => {
      fx = await adapter.open(CHAIN_SEED);
    });
    afterEach(async () => {
      await fx.close();
    });

    it('answers null for a token that does not exist, and never a neighbour', async () => {
      await expect(fx.reader.getPassport('zzzzzzzzzzzz')).resolves.toBeNull();
      await expect(fx.reader.getPassport('BHAHBKBRAMAX')).resolves.toBeNull();
      await expect(fx.reader.getPassport('')).resolves.toBeNull();
    });

    it('reads a passport with its owner, contract and string metadata', async () => {
      const record = (await fx.reader.getPassport('bhahbkbramax')) as PassportRecord;
      expect(record).toEqual({
        tokenId: 'bhahbkbramax',
        ownerId: OWNER_IMPLICIT,
        contractId: CHAIN_SEED.contractId,
        metadata: { token_id: 'bhahbkbramax', not_after: '2027-01-01T00:00:00Z' },
        revoked: false,
      });
      expect(fx.reader.contractId).toBe(CHAIN_SEED.contractId);
    });

    it('reads a family-root passport by its bc=…;sc=…;id=… token id', async () => {
      const root = await fx.reader.getPassport('bc=local;sc=passport.test.near;id=devroot');
      expect(root?.ownerId).toBe(OWNER_IMPLICIT);
    });

    it('reports revocation so that the core sees it', async () => {
      const revoked = (await fx.reader.getPassport('bjbvcjzqbdsj')) as PassportRecord;
      const live = (await fx.reader.getPassport('bhahbkbramax')) as PassportRecord;
      expect(revoked.revoked).toBe(true);
      expect(isPassportRevoked(revoked)).toBe(true);
      expect(isPassportRevoked(live)).toBe(false);
    });

    it('gives chain time, and the core decides liveness against it', async () => {
      const now = await fx.reader.chainTimeMs();
      expect(now).toBe(CHAIN_SEED.chainTimeMs);
      const live = (await fx.reader.getPassport('bhahbkbramax')) as PassportRecord;
      const expired = (await fx.reader.getPassport('lhsrldbjsnlh')) as PassportRecord;
      expect(isPassportLive(live.metadata, now)).toBe(true);
      expect(isPassportLive(expired.metadata, now)).toBe(false);
    });

    it('lists passports by owner in chain order, paged', async () => {
      const all = await fx.reader.listPassportsByOwner('alice.near', { fromIndex: 0, limit: 10 });
      expect(all.map((r) => r.tokenId)).toEqual(['lhsrldbjsnlh', 'bjbvcjzqbdsj']);
      const second = await fx.reader.listPassportsByOwner('alice.near', { fromIndex: 1, limit: 1 });
      expect(second.map((r) => r.tokenId)).toEqual(['bjbvcjzqbdsj']);
      await expect(
        fx.reader.listPassportsByOwner('nobody.near', { fromIndex: 0, limit: 10 }),
      ).resolves.toEqual([]);
    });

    it('lists all passports, paged', async () => {
      const page = await fx.reader.listPassports({ fromIndex: 1, limit: 2 });
      expect(page.map((r) => r.tokenId)).toEqual(['lhsrldbjsnlh', 'bjbvcjzqbdsj']);
      await expect(fx.reader.listPassports({ fromIndex: 10, limit: 2 })).resolves.toEqual([]);
    });

    it('gives the full-access Ed25519 keys of a named account, and [] for an unknown one', async () => {
      const keys = await fx.reader.getAccountKeys('alice.near');
      expect(keys.map(hex)).toEqual([hex(KEY_A), hex(KEY_B)]);
      await expect(fx.reader.getAccountKeys('ghost.near')).resolves.toEqual([]);
    });

    it('follows changes on the chain without a restart (new passport, transfer)', async () => {
      await expect(fx.reader.getPassport('chbvcnurbkuw')).resolves.toBeNull();
      // Read before the change (a mutation test: a reader that kept every record, or an owner's
      // listing, it had read passed).
      expect((await fx.reader.getPassport('bhahbkbramax'))?.ownerId).toBe(OWNER_IMPLICIT);
      await expect(fx.reader.listPassportsByOwner('bob.near', { fromIndex: 0, limit: 10 })).resolves.toEqual(
        [],
      );
      const transferred = CHAIN_SEED.passports.map((p) =>
        p.token_id === 'bhahbkbramax' ? { ...p, owner_id: 'bob.near' } : p,
      );
      await fx.replace([...transferred, { token_id: 'chbvcnurbkuw', owner_id: 'bob.near', metadata: {} }]);
      await eventually(async () => {
        expect((await fx.reader.getPassport('chbvcnurbkuw'))?.ownerId).toBe('bob.near');
        expect((await fx.reader.getPassport('bhahbkbramax'))?.ownerId).toBe('bob.near');
        const bobs = await fx.reader.listPassportsByOwner('bob.near', { fromIndex: 0, limit: 10 });
        expect(bobs.map((r) => r.tokenId).sort()).toEqual(['bhahbkbramax', 'chbvcnurbkuw']);
      });
    });

    // A mutation test: a reader that kept an account's keys for good passed, and a deleted key went on
    // signing logins.
    it("follows an account's keys: a deleted key is gone (where the fixture can change keys)", async () => {
      if (!fx.replaceAccountKeys) return;
      expect((await fx.reader.getAccountKeys('alice.near')).map(hex)).toEqual([hex(KEY_A), hex(KEY_B)]);
      await fx.replaceAccountKeys('alice.near', [KEY_B]);
      await eventually(async () => {
        expect((await fx.reader.getAccountKeys('alice.near')).map(hex)).toEqual([hex(KEY_B)]);
      });
    });

    it('follows a passport leaving the chain (burned): read before, null after', async () => {
      expect((await fx.reader.getPassport('lhsrldbjsnlh'))?.tokenId).toBe('lhsrldbjsnlh');
      await fx.replace(CHAIN_SEED.passports.filter((p) => p.token_id !== 'lhsrldbjsnlh'));
      await eventually(async () => {
        await expect(fx.reader.getPassport('lhsrldbjsnlh')).resolves.toBeNull();
      });
    });
  });
}
