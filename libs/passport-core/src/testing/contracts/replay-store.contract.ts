/**
 * The ReplayStore contract: single use, expiry and re-record, atomicity under concurrency, the cap
 * (never evicting a live record), the per-owner quota, and, for adapters over shared storage,
 * persistence across a restart and atomicity across instances. The repo runs it against every adapter
 * it ships; an integrator runs it against their own (see contract-test-api.ts).
 */
import { type ReplayStore, type ReplayStoreUsage } from '../../ports/replay-store.port.js';
import { type ContractAdapter, type ContractHarness, type ContractTestApi } from './contract-test-api.js';

/** What the suite observes besides the port: the store's size, its sweep and its usage figures. */
export interface ReplayStoreHarness extends ContractHarness<ReplayStore> {
  /** Records held, expired ones not yet swept included. */
  size(): number | Promise<number>;
  /** Deletes the records expired at `nowMs`; returns how many. */
  sweep(nowMs: number): number | Promise<number>;
  usage(): ReplayStoreUsage | Promise<ReplayStoreUsage>;
}

export function describeReplayStoreContract(
  test: ContractTestApi,
  kind: ContractAdapter<ReplayStore, ReplayStoreHarness>,
): void {
  const { describe, it, expect, beforeEach, afterEach } = test;

  describe(`ReplayStore (${kind.name})`, () => {
    let h: ReplayStoreHarness;
    afterEach(async () => {
      await h?.close();
    });

    describe('single use', () => {
      beforeEach(async () => {
        h = await kind.open();
      });

      it('refuses a live key and reports when it was first seen', async () => {
        await expect(h.store.recordIfAbsent('abcdefghijkl|00FF', 1000, 5000)).resolves.toEqual({
          recorded: true,
        });
        await expect(h.store.recordIfAbsent('abcdefghijkl|00FF', 2000, 9000)).resolves.toEqual({
          recorded: false,
          firstSeenAtMs: 1000,
        });
      });

      it('a refused attempt neither extends nor replaces the record', async () => {
        await h.store.recordIfAbsent('k', 1000, 5000);
        await h.store.recordIfAbsent('k', 4000, 99_000);
        // Still expiring at 5000 (the refused call's expiry was ignored) and first seen at 1000.
        await expect(h.store.recordIfAbsent('k', 4999, 6000)).resolves.toEqual({
          recorded: false,
          firstSeenAtMs: 1000,
        });
        await expect(h.store.recordIfAbsent('k', 5000, 6000)).resolves.toEqual({ recorded: true });
      });

      it('keys are independent (exact match, case-sensitive)', async () => {
        await h.store.recordIfAbsent('abcdefghijkl|00FF', 1000, 5000);
        await expect(h.store.recordIfAbsent('abcdefghijkl|00FE', 1000, 5000)).resolves.toEqual({
          recorded: true,
        });
        await expect(h.store.recordIfAbsent('ABCDEFGHIJKL|00FF', 1000, 5000)).resolves.toEqual({
          recorded: true,
        });
        await expect(h.store.recordIfAbsent('abcdefghijkl|00ff', 1000, 5000)).resolves.toEqual({
          recorded: true,
        });
      });
    });

    describe('expiry', () => {
      beforeEach(async () => {
        h = await kind.open();
      });

      it('a record lives until expiresAtMs (exclusive) and may then be recorded again with a new first-seen time', async () => {
        await h.store.recordIfAbsent('k', 1000, 61_000);
        await expect(h.store.recordIfAbsent('k', 60_999, 70_000)).resolves.toEqual({
          recorded: false,
          firstSeenAtMs: 1000,
        });
        await expect(h.store.recordIfAbsent('k', 61_000, 121_000)).resolves.toEqual({ recorded: true });
        await expect(h.store.recordIfAbsent('k', 61_001, 200_000)).resolves.toEqual({
          recorded: false,
          firstSeenAtMs: 61_000,
        });
      });

      it('sweep removes exactly the expired records', async () => {
        await h.store.recordIfAbsent('a', 0, 100);
        await h.store.recordIfAbsent('b', 0, 200);
        await h.store.recordIfAbsent('c', 0, 300);
        expect(await h.sweep(99)).toBe(0);
        expect(await h.sweep(200)).toBe(2);
        expect(await h.size()).toBe(1);
        await expect(h.store.recordIfAbsent('c', 250, 400)).resolves.toEqual({
          recorded: false,
          firstSeenAtMs: 0,
        });
      });
    });

    describe('atomicity', () => {
      beforeEach(async () => {
        h = await kind.open();
      });

      it('of 200 concurrent records of one key exactly one is recorded; all others see its first-seen time', async () => {
        const outcomes = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            h.store.recordIfAbsent('abcdefghijkl|CAFE', 1000 + i, 100_000),
          ),
        );
        const recorded = outcomes.filter((o) => o.recorded);
        expect(recorded).toHaveLength(1);
        const winner = outcomes.findIndex((o) => o.recorded);
        for (const o of outcomes) if (!o.recorded) expect(o.firstSeenAtMs).toBe(1000 + winner);
      });

      it('of concurrent records over many keys each key is recorded exactly once', async () => {
        const keys = Array.from({ length: 50 }, (_, i) => `key${i}`);
        const calls = keys.flatMap((key) => Array.from({ length: 4 }, () => ({ key })));
        const outcomes = await Promise.all(
          calls.map(({ key }) => h.store.recordIfAbsent(key, 1000, 100_000)),
        );
        const perKey = new Map<string, number>();
        outcomes.forEach((o, i) => {
          if (o.recorded) perKey.set(calls[i].key, (perKey.get(calls[i].key) ?? 0) + 1);
        });
        expect([...perKey.values()]).toEqual(keys.map(() => 1));
      });
    });

    describe('row cap', () => {
      beforeEach(async () => {
        h = await kind.open({ maxEntries: 3 });
      });

      it('never evicts a live record: beyond maxEntries a new record is refused with REPLAY_STORE_FULL', async () => {
        for (const key of ['k1', 'k2', 'k3']) await h.store.recordIfAbsent(key, 1000, 100_000);
        await expect(h.store.recordIfAbsent('k4', 1000, 100_000)).rejects.toMatchObject({
          code: 'REPLAY_STORE_FULL',
        });
        expect(await h.size()).toBe(3);
        // Every live record still refuses its key, the oldest included.
        for (const key of ['k1', 'k2', 'k3']) {
          await expect(h.store.recordIfAbsent(key, 1001, 100_000)).resolves.toMatchObject({
            recorded: false,
          });
        }
        expect(await h.usage()).toMatchObject({
          records: 3,
          maxRecords: 3,
          refusedFull: 1,
          lastFullAtMs: 1000,
        });
      });

      it('makes room by dropping expired records, never a live one', async () => {
        await h.store.recordIfAbsent('old-live', 1000, 100_000);
        await h.store.recordIfAbsent('expiring', 1000, 2000);
        await h.store.recordIfAbsent('live', 1000, 100_000);
        await expect(h.store.recordIfAbsent('new', 3000, 100_000)).resolves.toEqual({ recorded: true });
        expect(await h.size()).toBe(3);
        await expect(h.store.recordIfAbsent('old-live', 3001, 100_000)).resolves.toEqual({
          recorded: false,
          firstSeenAtMs: 1000,
        });
      });

      // A mutation test: the atomicity tests set no cap, so a count-then-insert across an await passed.
      it('of 20 concurrent new records exactly maxEntries are recorded; the rest are REPLAY_STORE_FULL', async () => {
        const settled = await Promise.allSettled(
          Array.from({ length: 20 }, (_, i) => h.store.recordIfAbsent(`c${i}`, 1000, 100_000)),
        );
        expect(settled.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
        for (const r of settled)
          if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'REPLAY_STORE_FULL' });
        expect(await h.size()).toBe(3);
      });

      it('a share above 1 keeps at least one record of reserve past a full store', async () => {
        for (const key of ['k1', 'k2', 'k3']) await h.store.recordIfAbsent(key, 1000, 100_000);
        await expect(h.store.recordIfAbsent('r1', 1000, 100_000, undefined, 1.1)).resolves.toEqual({
          recorded: true,
        });
        await expect(h.store.recordIfAbsent('r2', 1000, 100_000, undefined, 1.1)).rejects.toMatchObject({
          code: 'REPLAY_STORE_FULL',
        });
      });

      it('a full store takes records again as soon as live ones expire', async () => {
        for (const key of ['k1', 'k2', 'k3']) await h.store.recordIfAbsent(key, 1000, 5000);
        await expect(h.store.recordIfAbsent('k4', 4999, 100_000)).rejects.toMatchObject({
          code: 'REPLAY_STORE_FULL',
        });
        await expect(h.store.recordIfAbsent('k4', 5000, 100_000)).resolves.toEqual({ recorded: true });
      });
    });

    describe('store shares (storeShare)', () => {
      beforeEach(async () => {
        h = await kind.open({ maxEntries: 10 });
      });

      // Subagent lines anyone can make must not fill the store and refuse every passport's lines; a
      // store full of lines must not refuse every login.
      it('a share below 1 is refused at its part of the cap while others still record; above 1 a reserve only it reaches', async () => {
        for (let i = 0; i < 5; i++) await h.store.recordIfAbsent(`half${i}`, 1000, 100_000, undefined, 0.5);
        await expect(h.store.recordIfAbsent('half5', 1000, 100_000, undefined, 0.5)).rejects.toMatchObject({
          code: 'REPLAY_STORE_FULL',
        });
        // A live key of the share is still reported as seen, not refused.
        await expect(h.store.recordIfAbsent('half0', 1000, 100_000, undefined, 0.5)).resolves.toEqual({
          recorded: false,
          firstSeenAtMs: 1000,
        });
        for (let i = 0; i < 5; i++) await h.store.recordIfAbsent(`full${i}`, 1000, 100_000);
        await expect(h.store.recordIfAbsent('full5', 1000, 100_000)).rejects.toMatchObject({
          code: 'REPLAY_STORE_FULL',
        });
        // 1.2 × 10: two more records for the reserve, then it is full too.
        await expect(h.store.recordIfAbsent('reserve0', 1000, 100_000, undefined, 1.2)).resolves.toEqual({
          recorded: true,
        });
        await expect(h.store.recordIfAbsent('reserve1', 1000, 100_000, undefined, 1.2)).resolves.toEqual({
          recorded: true,
        });
        await expect(h.store.recordIfAbsent('reserve2', 1000, 100_000, undefined, 1.2)).rejects.toMatchObject(
          {
            code: 'REPLAY_STORE_FULL',
          },
        );
        expect(await h.size()).toBe(12);
        await expect(h.store.recordIfAbsent('full6', 1000, 100_000)).rejects.toMatchObject({
          code: 'REPLAY_STORE_FULL',
        });
      });

      // The half is of all records (it keeps room for owners' lines), and a refusal at
      // it is not the store being full: health and the full-store figures must not say so.
      it('a share below 1 counts every record, and its refusals are not counted as the store being full', async () => {
        for (let i = 0; i < 5; i++) await h.store.recordIfAbsent(`full${i}`, 1000, 100_000);
        await expect(h.store.recordIfAbsent('half0', 1000, 100_000, undefined, 0.5)).rejects.toMatchObject({
          code: 'REPLAY_STORE_FULL',
        });
        expect(await h.usage()).toMatchObject({ refusedFull: 0, lastFullAtMs: null });
        await expect(h.store.recordIfAbsent('full5', 1000, 100_000)).resolves.toEqual({ recorded: true });
      });

      it('a share makes room by dropping expired records, as the cap does', async () => {
        for (let i = 0; i < 5; i++) await h.store.recordIfAbsent(`half${i}`, 1000, 2000, undefined, 0.5);
        await expect(h.store.recordIfAbsent('half5', 2000, 100_000, undefined, 0.5)).resolves.toEqual({
          recorded: true,
        });
      });
    });

    describe('per-owner quota', () => {
      beforeEach(async () => {
        h = await kind.open();
      });
      const quota = (owner: string) => ({ owner, maxPerOwner: 3 });

      it('refuses an owner beyond its live records (REPLAY_QUOTA_EXCEEDED); other owners are unaffected', async () => {
        for (const key of ['a1', 'a2', 'a3']) {
          await expect(h.store.recordIfAbsent(key, 1000, 5000, quota('attacker'))).resolves.toEqual({
            recorded: true,
          });
        }
        await expect(h.store.recordIfAbsent('a4', 1000, 5000, quota('attacker'))).rejects.toMatchObject({
          code: 'REPLAY_QUOTA_EXCEEDED',
          details: { maxPerSender: 3 },
        });
        await expect(h.store.recordIfAbsent('v1', 1000, 5000, quota('victim'))).resolves.toEqual({
          recorded: true,
        });
        // A replay of the owner's own live line is still reported as a replay.
        await expect(h.store.recordIfAbsent('a1', 1001, 5000, quota('attacker'))).resolves.toEqual({
          recorded: false,
          firstSeenAtMs: 1000,
        });
        expect((await h.usage()).refusedQuota).toBe(1);
        expect(await h.size()).toBe(4);
      });

      // A mutation test: the atomicity tests set no quota, so one sender passed its bound with
      // concurrent records.
      it('of 20 concurrent records of one owner exactly its quota are recorded', async () => {
        const settled = await Promise.allSettled(
          Array.from({ length: 20 }, (_, i) =>
            h.store.recordIfAbsent(`q${i}`, 1000, 100_000, quota('attacker')),
          ),
        );
        expect(settled.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
        for (const r of settled)
          if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'REPLAY_QUOTA_EXCEEDED' });
      });

      it("frees an owner's quota as its records expire (before any background sweep)", async () => {
        for (const key of ['a1', 'a2', 'a3'])
          await h.store.recordIfAbsent(key, 1000, 5000, quota('attacker'));
        await expect(h.store.recordIfAbsent('a4', 4999, 9000, quota('attacker'))).rejects.toMatchObject({
          code: 'REPLAY_QUOTA_EXCEEDED',
        });
        await expect(h.store.recordIfAbsent('a4', 6000, 9000, quota('attacker'))).resolves.toEqual({
          recorded: true,
        });
      });

      it('re-recording an expired key of an owner does not count it twice', async () => {
        await h.store.recordIfAbsent('a1', 1000, 2000, quota('attacker'));
        for (let i = 0; i < 5; i++)
          await h.store.recordIfAbsent('a1', 2000 + i * 1000, 2500 + i * 1000, quota('attacker'));
        await h.store.recordIfAbsent('a2', 9000, 20_000, quota('attacker'));
        await expect(h.store.recordIfAbsent('a3', 9000, 20_000, quota('attacker'))).resolves.toEqual({
          recorded: true,
        });
      });
    });

    if (kind.sharedStorage) {
      describe('shared storage (a second instance, a restart)', () => {
        beforeEach(async () => {
          h = await kind.open();
        });

        it('records survive a restart (close and reopen the same file)', async () => {
          await h.store.recordIfAbsent('abcdefghijkl|00FF', 1000, 100_000);
          const reopened = (await h.restart()) as ReplayStore;
          await expect(reopened.recordIfAbsent('abcdefghijkl|00FF', 2000, 100_000)).resolves.toEqual({
            recorded: false,
            firstSeenAtMs: 1000,
          });
        });

        it('two connections on one file: of 200 interleaved records of one key exactly one is recorded', async () => {
          const peer = (await h.openPeer()) as ReplayStore;
          const stores = [h.store, peer];
          const outcomes = await Promise.all(
            Array.from({ length: 200 }, (_, i) => stores[i % 2].recordIfAbsent('shared', 1000, 100_000)),
          );
          expect(outcomes.filter((o) => o.recorded)).toHaveLength(1);
          await expect(peer.recordIfAbsent('other', 1000, 100_000)).resolves.toEqual({ recorded: true });
          await expect(h.store.recordIfAbsent('other', 1000, 100_000)).resolves.toEqual({
            recorded: false,
            firstSeenAtMs: 1000,
          });
        });
      });
    }
  });
}
