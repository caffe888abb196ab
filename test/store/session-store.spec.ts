/**
 * The SessionStore contract (@passport/core/testing) against every adapter this repo ships (the core's
 * memory adapter, SQLite on a temp file, Redis), and the SQLite adapter's own read cache: one look at the other
 * connections per turn of the event loop.
 */
import { hasSyncSessionGet, type SessionRecord, type SessionStore } from '@passport/core/ports';
import { describeSessionStoreContract, sampleSessionRecord } from '@passport/core/testing';
import { sessionAdapters } from './support/store-adapters.js';

const framework = { describe, it, expect, beforeEach, afterEach };

for (const adapter of sessionAdapters) describeSessionStoreContract(framework, adapter);

// The contract's getSync cases run only where an adapter reads synchronously: pin which ones do, so
// that losing getSync (the JWT tier's promise-free read) fails here instead of skipping those cases.
describe.each([
  ['memory', true],
  ['sqlite', true],
  ['redis', false],
] as const)('SessionStore (%s): synchronous read', (name, expected) => {
  it(`getSync ${expected ? 'is' : 'is not'} offered`, async () => {
    const h = await sessionAdapters.find((a) => a.name === name)!.open();
    try {
      expect(hasSyncSessionGet(h.store)).toBe(expected);
    } finally {
      await h.close();
    }
  });
});

/** Resolves in the next turn of the event loop (after its check phase), as the next request would be handled. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const session = (n: number): SessionRecord => sampleSessionRecord(n);

describe('SessionStore (sqlite): connections on one file', () => {
  const sqlite = sessionAdapters.find((a) => a.name === 'sqlite')!;
  let h: ReturnType<typeof sqlite.open>;
  beforeEach(() => {
    h = sqlite.open();
  });
  afterEach(() => h.close());

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
});
