/**
 * SessionStore behaviour, one suite run against every adapter (core memory, SQLite on a temp file):
 * create/get round trip, single close, newest-first listing with total, open counts, sweep, the row
 * cap, and — for SQLite — persistence across a restart and a logout seen by another instance.
 */
import { SessionCapacityError, type SessionRecord, type SessionStore } from '@passport/core/ports';
import { type Harness, sessionAdapters, type SweepableSessionStore } from './support/store-adapters.js';

/** Resolves in the next turn of the event loop (after its check phase), as the next request would be handled. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function session(n: number, overrides: Partial<SessionRecord> = {}): SessionRecord {
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

describe.each(sessionAdapters)('SessionStore ($name)', (kind) => {
  let h: Harness<SweepableSessionStore>;
  afterEach(() => h?.close());

  describe('lifecycle', () => {
    beforeEach(() => {
      h = kind.open();
    });

    it('get of an unknown session is null', async () => {
      await expect(h.store.get('sess_nope')).resolves.toBeNull();
    });

    it('create then get returns the same record, every field included', async () => {
      const federated = session(1, {
        federatedFrom: 'https://home.example',
        ownerId: 'bob.near',
        tokenId: 'zyxwvutsrqpo',
      });
      await h.store.create(federated);
      await expect(h.store.get(federated.sessionId)).resolves.toEqual(federated);
    });

    it('creating a session id twice is refused and keeps the first record', async () => {
      await h.store.create(session(1));
      await expect(h.store.create(session(1, { jti: 'other' }))).rejects.toThrow(/already exists/);
      await expect(h.store.get(session(1).sessionId)).resolves.toMatchObject({ jti: 'jti-1' });
    });

    it('close succeeds once, records when and why, and is refused for unknown or closed sessions', async () => {
      await h.store.create(session(1));
      await expect(h.store.close('sess_nope', 'logout', 5000)).resolves.toBe(false);
      await expect(h.store.close(session(1).sessionId, 'logout', 5000)).resolves.toBe(true);
      await expect(h.store.close(session(1).sessionId, 'again', 6000)).resolves.toBe(false);
      await expect(h.store.get(session(1).sessionId)).resolves.toMatchObject({
        closedAtMs: 5000,
        closeReason: 'logout',
      });
    });

    it('lists newest first (ties: the later created first), pages by offset/limit, total counts all', async () => {
      await h.store.create(session(2));
      await h.store.create(session(1));
      await h.store.create(session(3));
      await h.store.create(session(4, { createdAtMs: 3000 })); // same createdAtMs as session 3, created later
      const all = await h.store.list({ offset: 0, limit: 10 });
      expect(all.total).toBe(4);
      expect(all.items.map((s) => s.jti)).toEqual(['jti-4', 'jti-3', 'jti-2', 'jti-1']);
      const page = await h.store.list({ offset: 1, limit: 2 });
      expect(page).toEqual({ items: [all.items[1], all.items[2]], total: 4 });
      await expect(h.store.list({ offset: 10, limit: 2 })).resolves.toEqual({ items: [], total: 4 });
    });

    it('countOpen excludes closed sessions and sessions at or past their expiry', async () => {
      await h.store.create(session(1, { expiresAtMs: 10_000 }));
      await h.store.create(session(2, { expiresAtMs: 20_000 }));
      await h.store.create(session(3, { expiresAtMs: 30_000 }));
      await h.store.close(session(3).sessionId, 'logout', 5000);
      await expect(h.store.countOpen(9_999)).resolves.toBe(2);
      await expect(h.store.countOpen(10_000)).resolves.toBe(1);
      await expect(h.store.countOpen(20_000)).resolves.toBe(0);
    });

    it('sweep deletes closed and expired sessions and keeps open ones', async () => {
      await h.store.create(session(1, { expiresAtMs: 10_000 }));
      await h.store.create(session(2, { expiresAtMs: 20_000 }));
      await h.store.create(session(3, { expiresAtMs: 30_000 }));
      await h.store.close(session(3).sessionId, 'logout', 5000);
      await expect(h.store.sweep(10_000)).resolves.toBe(2);
      await expect(h.store.get(session(1).sessionId)).resolves.toBeNull();
      await expect(h.store.get(session(3).sessionId)).resolves.toBeNull();
      await expect(h.store.get(session(2).sessionId)).resolves.toMatchObject({ jti: 'jti-2' });
      await expect(h.store.list({ offset: 0, limit: 10 })).resolves.toMatchObject({ total: 1 });
    });
  });

  describe('row cap', () => {
    beforeEach(() => {
      h = kind.open({ maxEntries: 3 });
    });

    it('a create beyond maxEntries drops closed and expired sessions first', async () => {
      await h.store.create(session(1));
      await h.store.create(session(2));
      await h.store.create(session(3));
      await h.store.close(session(2).sessionId, 'logout', 3500);
      await h.store.create(session(4));
      expect(await h.store.size).toBe(3);
      await expect(h.store.get(session(1).sessionId)).resolves.not.toBeNull();
      await expect(h.store.get(session(2).sessionId)).resolves.toBeNull();
    });

    it('then refuses the new session: an open session is never evicted', async () => {
      for (const n of [1, 2, 3]) await h.store.create(session(n, { tokenId: `passport${n}abcd` }));
      await expect(h.store.create(session(4))).rejects.toBeInstanceOf(SessionCapacityError);
      expect(await h.store.size).toBe(3);
      await expect(h.store.get(session(4).sessionId)).resolves.toBeNull();
      const listed = await h.store.list({ offset: 0, limit: 10 });
      expect(listed.items.map((s) => s.jti)).toEqual(['jti-3', 'jti-2', 'jti-1']);
      await expect(h.store.countOpen(5000)).resolves.toBe(3);
    });
  });

  describe('per-passport bound', () => {
    beforeEach(() => {
      h = kind.open({ maxOpenPerPassport: 2 });
    });

    it("a passport's login beyond its bound closes its own oldest open session, never another's", async () => {
      await h.store.create(session(1, { tokenId: 'otherpassprt' }));
      for (const n of [2, 3, 4]) await h.store.create(session(n));
      await expect(h.store.get(session(2).sessionId)).resolves.toMatchObject({ closedAtMs: 4000, closeReason: 'superseded' });
      await expect(h.store.get(session(3).sessionId)).resolves.toMatchObject({ closedAtMs: null });
      await expect(h.store.get(session(4).sessionId)).resolves.toMatchObject({ closedAtMs: null });
      await expect(h.store.get(session(1).sessionId)).resolves.toMatchObject({ closedAtMs: null });
      await expect(h.store.countOpen(4000)).resolves.toBe(3);
    });
  });

  describe('renewals', () => {
    beforeEach(() => {
      h = kind.open();
    });

    it('counts renewals of an open session, with the last time; refuses closed, expired and unknown ones', async () => {
      await h.store.create(session(1, { expiresAtMs: 10_000 }));
      await expect(h.store.get(session(1).sessionId)).resolves.toMatchObject({ renewalCount: 0, lastRenewedAtMs: null });
      await expect(h.store.recordRenewal(session(1).sessionId, 2000)).resolves.toBe(true);
      await expect(h.store.recordRenewal(session(1).sessionId, 3000)).resolves.toBe(true);
      await expect(h.store.get(session(1).sessionId)).resolves.toMatchObject({ renewalCount: 2, lastRenewedAtMs: 3000 });
      await expect(h.store.recordRenewal(session(1).sessionId, 10_000)).resolves.toBe(false);
      await h.store.close(session(1).sessionId, 'logout', 4000);
      await expect(h.store.recordRenewal(session(1).sessionId, 5000)).resolves.toBe(false);
      await expect(h.store.recordRenewal('sess_nope', 5000)).resolves.toBe(false);
    });
  });

  if (kind.name !== 'memory') {
    describe(`shared storage (${kind.name})`, () => {
      beforeEach(() => {
        h = kind.open();
      });

      it('sessions and their closing survive a restart', async () => {
        await h.store.create(session(1));
        await h.store.create(session(2));
        await h.store.close(session(2).sessionId, 'logout', 5000);
        const reopened = h.restart() as SessionStore;
        await expect(reopened.get(session(1).sessionId)).resolves.toEqual(session(1));
        await expect(reopened.get(session(2).sessionId)).resolves.toMatchObject({ closedAtMs: 5000 });
        await expect(reopened.countOpen(5000)).resolves.toBe(1);
      });

      it('a session read (and cached) by one instance and closed by another is seen closed by the next request', async () => {
        const peer = h.openPeer() as SessionStore;
        await h.store.create(session(4));
        await expect(h.store.get(session(4).sessionId)).resolves.toMatchObject({ closedAtMs: null });
        await nextTurn();
        await expect(h.store.get(session(4).sessionId)).resolves.toMatchObject({ closedAtMs: null });
        await expect(peer.close(session(4).sessionId, 'revoked', 6000)).resolves.toBe(true);
        // Requests are read in the poll phase, so a request sent after the close is handled in a later turn.
        await nextTurn();
        await expect(h.store.get(session(4).sessionId)).resolves.toMatchObject({
          closedAtMs: 6000,
          closeReason: 'revoked',
        });
      });

      // SQLite's read cache only: Redis reads the server on every get, so the close shows at once.
      if (kind.name === 'sqlite') {
        it('reads in one turn of the event loop share one look at the other connections (the next turn looks again)', async () => {
          const peer = h.openPeer() as SessionStore;
          await h.store.create(session(5));
          await nextTurn();
          await expect(h.store.get(session(5).sessionId)).resolves.toMatchObject({ closedAtMs: null });
          await expect(peer.close(session(5).sessionId, 'logout', 7000)).resolves.toBe(true);
          // Same turn: the answer this turn's first read saw (a request handled now arrived before the close).
          await expect(h.store.get(session(5).sessionId)).resolves.toMatchObject({ closedAtMs: null });
          await nextTurn();
          await expect(h.store.get(session(5).sessionId)).resolves.toMatchObject({ closedAtMs: 7000 });
        });
      }

      it('a logout on one instance is seen by another at once, and only one of them can close it', async () => {
        const peer = h.openPeer() as SessionStore;
        await h.store.create(session(1));
        await expect(peer.get(session(1).sessionId)).resolves.toEqual(session(1));
        const closes = await Promise.all([
          peer.close(session(1).sessionId, 'logout', 5000),
          h.store.close(session(1).sessionId, 'logout', 5000),
        ]);
        expect(closes.filter(Boolean)).toHaveLength(1);
        await expect(h.store.get(session(1).sessionId)).resolves.toMatchObject({ closedAtMs: 5000 });
      });
    });
  }
});
