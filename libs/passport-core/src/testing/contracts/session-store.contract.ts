/**
 * The SessionStore contract: create/get round trip, single close, newest-first listing with total, open
 * counts, sweep, the cap (never evicting an open session), the per-passport bound, renewals, and, for
 * adapters over shared storage, persistence across a restart and a logout seen by another instance;
 * for adapters with a synchronous read (`getSync`), that it answers what `get` answers. The
 * repo runs it against every adapter it ships; an integrator runs it against their own (see
 * contract-test-api.ts).
 */
import {
  hasSyncSessionGet,
  SessionCapacityError,
  type SessionRecord,
  type SessionStore,
} from '../../ports/session-store.port.js';
import { type ContractAdapter, type ContractHarness, type ContractTestApi } from './contract-test-api.js';

/** What the suite observes besides the port: the number of sessions held. */
export interface SessionStoreHarness extends ContractHarness<SessionStore> {
  size(): number | Promise<number>;
}

/**
 * Resolves in the next turn of the event loop (after its check phase), as the next request would be
 * handled. setImmediate where the runtime has it (Node); a zero timeout elsewhere.
 */
const nextTurn = (): Promise<void> =>
  new Promise((resolve) => {
    const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;
    if (immediate) immediate(resolve);
    else setTimeout(resolve, 0);
  });

/** The n-th sample session of one passport (created at n s, open, one hour long): the suite's fixture. */
export function sampleSessionRecord(n: number, overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    sessionId: `sess_abcdefghijkl_01J0000000000000000000000${n}`,
    tokenId: 'abcdefghijkl',
    ownerId: 'alice.near',
    jti: `jti-${n}`,
    createdAtMs: 1000 * n,
    expiresAtMs: 1000 * n + 3_600_000,
    closedAtMs: null,
    closeReason: null,
    federatedFrom: null,
    renewalCount: 0,
    lastRenewedAtMs: null,
    ...overrides,
  };
}

export function describeSessionStoreContract(
  test: ContractTestApi,
  kind: ContractAdapter<SessionStore, SessionStoreHarness>,
): void {
  const { describe, it, expect, beforeEach, afterEach } = test;

  describe(`SessionStore (${kind.name})`, () => {
    let h: SessionStoreHarness;
    afterEach(async () => {
      await h?.close();
    });

    describe('lifecycle', () => {
      beforeEach(async () => {
        h = await kind.open();
      });

      it('get of an unknown session is null', async () => {
        await expect(h.store.get('sess_nope')).resolves.toBeNull();
      });

      it('getSync (where the adapter has it) answers what get answers: unknown, open, closed', async () => {
        if (!hasSyncSessionGet(h.store)) return;
        const store = h.store;
        expect(store.getSync('sess_nope')).toBeNull();
        await store.create(sampleSessionRecord(1));
        expect(store.getSync(sampleSessionRecord(1).sessionId)).toEqual(
          await store.get(sampleSessionRecord(1).sessionId),
        );
        await store.close(sampleSessionRecord(1).sessionId, 'logout', 5000);
        expect(store.getSync(sampleSessionRecord(1).sessionId)).toMatchObject({
          closedAtMs: 5000,
          closeReason: 'logout',
        });
        expect(store.getSync(sampleSessionRecord(1).sessionId)).toEqual(
          await store.get(sampleSessionRecord(1).sessionId),
        );
      });

      it('create then get returns the same record, every field included', async () => {
        const federated = sampleSessionRecord(1, {
          federatedFrom: 'https://home.example',
          ownerId: 'bob.near',
          tokenId: 'zyxwvutsrqpo',
        });
        await h.store.create(federated);
        await expect(h.store.get(federated.sessionId)).resolves.toEqual(federated);
      });

      it('creating a session id twice is refused and keeps the first record', async () => {
        await h.store.create(sampleSessionRecord(1));
        await expect(h.store.create(sampleSessionRecord(1, { jti: 'other' }))).rejects.toThrow(
          /already exists/,
        );
        await expect(h.store.get(sampleSessionRecord(1).sessionId)).resolves.toMatchObject({ jti: 'jti-1' });
      });

      it('close succeeds once, records when and why, and is refused for unknown or closed sessions', async () => {
        await h.store.create(sampleSessionRecord(1));
        await expect(h.store.close('sess_nope', 'logout', 5000)).resolves.toBe(false);
        await expect(h.store.close(sampleSessionRecord(1).sessionId, 'logout', 5000)).resolves.toBe(true);
        await expect(h.store.close(sampleSessionRecord(1).sessionId, 'again', 6000)).resolves.toBe(false);
        await expect(h.store.get(sampleSessionRecord(1).sessionId)).resolves.toMatchObject({
          closedAtMs: 5000,
          closeReason: 'logout',
        });
      });

      it('lists newest first (ties: the later created first), pages by offset/limit, total counts all', async () => {
        await h.store.create(sampleSessionRecord(2));
        await h.store.create(sampleSessionRecord(1));
        await h.store.create(sampleSessionRecord(3));
        // Same createdAtMs as session 3, created later, with the smaller session id (so that an order by
        // id passes no more than an order by insertion fails).
        await h.store.create(sampleSessionRecord(0, { createdAtMs: 3000 }));
        const all = await h.store.list({ offset: 0, limit: 10 });
        expect(all.total).toBe(4);
        expect(all.items.map((s) => s.jti)).toEqual(['jti-0', 'jti-3', 'jti-2', 'jti-1']);
        const page = await h.store.list({ offset: 1, limit: 2 });
        expect(page).toEqual({ items: [all.items[1], all.items[2]], total: 4 });
        await expect(h.store.list({ offset: 10, limit: 2 })).resolves.toEqual({ items: [], total: 4 });
      });

      it('lists closed sessions too, and counts them in total', async () => {
        await h.store.create(sampleSessionRecord(1));
        await h.store.create(sampleSessionRecord(2));
        await h.store.close(sampleSessionRecord(1).sessionId, 'logout', 2500);
        const all = await h.store.list({ offset: 0, limit: 10 });
        expect(all.total).toBe(2);
        expect(all.items.map((s) => s.jti)).toEqual(['jti-2', 'jti-1']);
        expect(all.items[1]).toMatchObject({ closedAtMs: 2500, closeReason: 'logout' });
      });

      it('countOpen excludes closed sessions and sessions at or past their expiry', async () => {
        await h.store.create(sampleSessionRecord(1, { expiresAtMs: 10_000 }));
        await h.store.create(sampleSessionRecord(2, { expiresAtMs: 20_000 }));
        await h.store.create(sampleSessionRecord(3, { expiresAtMs: 30_000 }));
        await h.store.close(sampleSessionRecord(3).sessionId, 'logout', 5000);
        await expect(h.store.countOpen(9_999)).resolves.toBe(2);
        await expect(h.store.countOpen(10_000)).resolves.toBe(1);
        await expect(h.store.countOpen(20_000)).resolves.toBe(0);
      });

      it('sweep deletes closed and expired sessions and keeps open ones', async () => {
        await h.store.create(sampleSessionRecord(1, { expiresAtMs: 10_000 }));
        await h.store.create(sampleSessionRecord(2, { expiresAtMs: 20_000 }));
        await h.store.create(sampleSessionRecord(3, { expiresAtMs: 30_000 }));
        await h.store.close(sampleSessionRecord(3).sessionId, 'logout', 5000);
        await expect(h.store.sweep(10_000)).resolves.toBe(2);
        await expect(h.store.get(sampleSessionRecord(1).sessionId)).resolves.toBeNull();
        await expect(h.store.get(sampleSessionRecord(3).sessionId)).resolves.toBeNull();
        await expect(h.store.get(sampleSessionRecord(2).sessionId)).resolves.toMatchObject({ jti: 'jti-2' });
        await expect(h.store.list({ offset: 0, limit: 10 })).resolves.toMatchObject({ total: 1 });
      });
    });

    describe('row cap', () => {
      beforeEach(async () => {
        h = await kind.open({ maxEntries: 3 });
      });

      it('a create beyond maxEntries drops closed and expired sessions first', async () => {
        await h.store.create(sampleSessionRecord(1));
        await h.store.create(sampleSessionRecord(2));
        await h.store.create(sampleSessionRecord(3));
        await h.store.close(sampleSessionRecord(2).sessionId, 'logout', 3500);
        await h.store.create(sampleSessionRecord(4));
        expect(await h.size()).toBe(3);
        await expect(h.store.get(sampleSessionRecord(1).sessionId)).resolves.not.toBeNull();
        await expect(h.store.get(sampleSessionRecord(2).sessionId)).resolves.toBeNull();
      });

      it('then refuses the new session: an open session is never evicted', async () => {
        for (const n of [1, 2, 3])
          await h.store.create(sampleSessionRecord(n, { tokenId: `passport${n}abcd` }));
        await expect(h.store.create(sampleSessionRecord(4))).rejects.toBeInstanceOf(SessionCapacityError);
        expect(await h.size()).toBe(3);
        await expect(h.store.get(sampleSessionRecord(4).sessionId)).resolves.toBeNull();
        const listed = await h.store.list({ offset: 0, limit: 10 });
        expect(listed.items.map((s) => s.jti)).toEqual(['jti-3', 'jti-2', 'jti-1']);
        await expect(h.store.countOpen(5000)).resolves.toBe(3);
      });
    });

    describe('per-passport bound', () => {
      beforeEach(async () => {
        h = await kind.open({ maxOpenPerPassport: 2 });
      });

      it("a passport's login beyond its bound closes its own oldest open session, never another's", async () => {
        await h.store.create(sampleSessionRecord(1, { tokenId: 'otherpassprt' }));
        for (const n of [2, 3, 4]) await h.store.create(sampleSessionRecord(n));
        await expect(h.store.get(sampleSessionRecord(2).sessionId)).resolves.toMatchObject({
          closedAtMs: 4000,
          closeReason: 'superseded',
        });
        await expect(h.store.get(sampleSessionRecord(3).sessionId)).resolves.toMatchObject({
          closedAtMs: null,
        });
        await expect(h.store.get(sampleSessionRecord(4).sessionId)).resolves.toMatchObject({
          closedAtMs: null,
        });
        await expect(h.store.get(sampleSessionRecord(1).sessionId)).resolves.toMatchObject({
          closedAtMs: null,
        });
        await expect(h.store.countOpen(4000)).resolves.toBe(3);
      });

      // A mutation test: counting closed or expired sessions toward the bound closed a live one.
      it('counts only open, unexpired sessions toward the bound', async () => {
        await h.store.create(sampleSessionRecord(1));
        await h.store.create(sampleSessionRecord(2));
        await h.store.close(sampleSessionRecord(2).sessionId, 'logout', 2500);
        await h.store.create(sampleSessionRecord(3, { expiresAtMs: 3500 }));
        await h.store.create(sampleSessionRecord(4)); // open now: 1 and 4 (3 has expired at 4000)
        await expect(h.store.get(sampleSessionRecord(1).sessionId)).resolves.toMatchObject({
          closedAtMs: null,
        });
        await expect(h.store.countOpen(4000)).resolves.toBe(2);
      });
    });

    describe('row cap and per-passport bound together', () => {
      beforeEach(async () => {
        h = await kind.open({ maxEntries: 3, maxOpenPerPassport: 2 });
      });

      // A full store and a passport at its bound: the login supersedes that passport's own oldest session,
      // whose room it then takes (a closed session is dropped first), and is stored: never refused, never
      // at another passport's cost.
      it("a login of a passport at its bound into a full store takes its own oldest session's place", async () => {
        await h.store.create(sampleSessionRecord(1, { tokenId: 'otherpassprt' }));
        await h.store.create(sampleSessionRecord(2));
        await h.store.create(sampleSessionRecord(3));
        await h.store.create(sampleSessionRecord(4)); // refused, it would throw
        await expect(h.store.get(sampleSessionRecord(2).sessionId)).resolves.toBeNull();
        for (const n of [1, 3, 4])
          await expect(h.store.get(sampleSessionRecord(n).sessionId)).resolves.toMatchObject({
            closedAtMs: null,
          });
        expect(await h.size()).toBe(3);
      });
    });

    describe('renewals', () => {
      beforeEach(async () => {
        h = await kind.open();
      });

      it('counts renewals of an open session, with the last time; refuses closed, expired and unknown ones', async () => {
        await h.store.create(sampleSessionRecord(1, { expiresAtMs: 10_000 }));
        await expect(h.store.get(sampleSessionRecord(1).sessionId)).resolves.toMatchObject({
          renewalCount: 0,
          lastRenewedAtMs: null,
        });
        await expect(h.store.recordRenewal(sampleSessionRecord(1).sessionId, 2000)).resolves.toBe(true);
        await expect(h.store.recordRenewal(sampleSessionRecord(1).sessionId, 3000)).resolves.toBe(true);
        await expect(h.store.get(sampleSessionRecord(1).sessionId)).resolves.toMatchObject({
          renewalCount: 2,
          lastRenewedAtMs: 3000,
        });
        await expect(h.store.recordRenewal(sampleSessionRecord(1).sessionId, 10_000)).resolves.toBe(false);
        await h.store.close(sampleSessionRecord(1).sessionId, 'logout', 4000);
        await expect(h.store.recordRenewal(sampleSessionRecord(1).sessionId, 5000)).resolves.toBe(false);
        await expect(h.store.recordRenewal('sess_nope', 5000)).resolves.toBe(false);
      });
    });

    if (kind.sharedStorage) {
      describe('shared storage (a second instance, a restart)', () => {
        beforeEach(async () => {
          h = await kind.open();
        });

        it('sessions and their closing survive a restart', async () => {
          await h.store.create(sampleSessionRecord(1));
          await h.store.create(sampleSessionRecord(2));
          await h.store.close(sampleSessionRecord(2).sessionId, 'logout', 5000);
          const reopened = (await h.restart()) as SessionStore;
          await expect(reopened.get(sampleSessionRecord(1).sessionId)).resolves.toEqual(
            sampleSessionRecord(1),
          );
          await expect(reopened.get(sampleSessionRecord(2).sessionId)).resolves.toMatchObject({
            closedAtMs: 5000,
          });
          await expect(reopened.countOpen(5000)).resolves.toBe(1);
        });

        it('getSync (where the adapter has it) sees a close by another instance at the next request', async () => {
          if (!hasSyncSessionGet(h.store)) return;
          const peer = (await h.openPeer()) as SessionStore;
          await h.store.create(sampleSessionRecord(5));
          expect(h.store.getSync(sampleSessionRecord(5).sessionId)).toMatchObject({ closedAtMs: null });
          await expect(peer.close(sampleSessionRecord(5).sessionId, 'revoked', 6000)).resolves.toBe(true);
          await nextTurn();
          expect(h.store.getSync(sampleSessionRecord(5).sessionId)).toMatchObject({
            closedAtMs: 6000,
            closeReason: 'revoked',
          });
        });

        it('a session read (and cached) by one instance and closed by another is seen closed by the next request', async () => {
          const peer = (await h.openPeer()) as SessionStore;
          await h.store.create(sampleSessionRecord(4));
          await expect(h.store.get(sampleSessionRecord(4).sessionId)).resolves.toMatchObject({
            closedAtMs: null,
          });
          await nextTurn();
          await expect(h.store.get(sampleSessionRecord(4).sessionId)).resolves.toMatchObject({
            closedAtMs: null,
          });
          await expect(peer.close(sampleSessionRecord(4).sessionId, 'revoked', 6000)).resolves.toBe(true);
          // Requests are read in the poll phase, so a request sent after the close is handled in a later turn.
          await nextTurn();
          await expect(h.store.get(sampleSessionRecord(4).sessionId)).resolves.toMatchObject({
            closedAtMs: 6000,
            closeReason: 'revoked',
          });
        });

        it('a logout on one instance is seen by another at once, and only one of them can close it', async () => {
          const peer = (await h.openPeer()) as SessionStore;
          await h.store.create(sampleSessionRecord(1));
          await expect(peer.get(sampleSessionRecord(1).sessionId)).resolves.toEqual(sampleSessionRecord(1));
          const closes = await Promise.all([
            peer.close(sampleSessionRecord(1).sessionId, 'logout', 5000),
            h.store.close(sampleSessionRecord(1).sessionId, 'logout', 5000),
          ]);
          expect(closes.filter(Boolean)).toHaveLength(1);
          await expect(h.store.get(sampleSessionRecord(1).sessionId)).resolves.toMatchObject({
            closedAtMs: 5000,
          });
        });
      });
    }
  });
}
