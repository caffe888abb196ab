/**
 * The SessionStore contract (@passport/core/testing) against every adapter this repo ships (the core's
 * memory adapter, SQLite on a temp file, Redis), and the SQLite adapter's own read cache: one look at the other
 * connections per turn of the event loop.
 */
import { hasSyncSessionGet, type SessionRecord, type SessionStore } from '@passport/core/ports';
import { describeSessionStoreContract, sampleSessionRecord } from '@passport/core/testing';
import { sessionAdapters } from './support/store-adapters.js';
import { runContenders } from './support/contenders.js';

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

describe('SessionStore (sqlite): sweep', () => {
  const sqlite = sessionAdapters.find((a) => a.name === 'sqlite')!;
  let h: ReturnType<typeof sqlite.open>;
  beforeEach(() => {
    h = sqlite.open();
  });
  afterEach(() => h.close());

  it('counts a session both closed and expired once, and keeps the table count true', async () => {
    await h.store.create(sampleSessionRecord(1, { expiresAtMs: 10_000 }));
    await h.store.create(sampleSessionRecord(2, { expiresAtMs: 20_000 }));
    await h.store.create(sampleSessionRecord(3, { expiresAtMs: 30_000 }));
    await h.store.close(sampleSessionRecord(1).sessionId, 'logout', 5000);
    await h.store.close(sampleSessionRecord(3).sessionId, 'logout', 5000);
    // 1: closed and expired; 2: expired; 3: closed.
    await expect(h.store.sweep(20_000)).resolves.toBe(3);
    expect(await h.size()).toBe(0);
    await expect(h.store.list({ offset: 0, limit: 10 })).resolves.toEqual({ items: [], total: 0 });
  });
});

describe('SessionStore (sqlite): bounds hold exactly across processes logging in through group-committed batches', () => {
  const sqlite = sessionAdapters.find((a) => a.name === 'sqlite')!;
  let h: ReturnType<typeof sqlite.open>;
  beforeEach(() => {
    h = sqlite.open();
  });
  afterEach(() => h.close());

  type Report = { stored: number; refused: Record<string, number> };
  const total = (reports: Report[], pick: (r: Report) => number) => reports.reduce((n, r) => n + pick(r), 0);

  it('three processes logging one passport in 600 times each with a bound of 7: every login stored, exactly 7 left open', async () => {
    const reports = await runContenders<Report>(3, [
      h.file as string,
      'login',
      '600',
      '7',
      '100000',
      'shared',
    ]);
    expect(total(reports, (r) => r.stored)).toBe(1800);
    expect(reports.every((r) => Object.keys(r.refused).length === 0)).toBe(true);
    expect(await h.size()).toBe(1800);
    expect(await h.store.countOpen(2000)).toBe(7);
  });

  it('three processes logging 400 passports in each into a store capped at 600: exactly 600 stored, every other login refused', async () => {
    const reports = await runContenders<Report>(3, [h.file as string, 'login', '400', '100', '600', 'own']);
    expect(total(reports, (r) => r.stored)).toBe(600);
    expect(total(reports, (r) => r.refused.SessionCapacityError ?? 0)).toBe(600);
    expect(await h.size()).toBe(600);
  });
});
