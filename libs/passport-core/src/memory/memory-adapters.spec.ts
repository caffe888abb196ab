import { ChainUnavailableError } from '../ports/chain-reader.port.js';
import { type PassportRecord } from '../passport/passport.types.js';
import { SessionCapacityError, type SessionRecord } from '../ports/session-store.port.js';
import { FixedClock } from './fixed.clock.js';
import { MemoryChainReader } from './memory-chain.reader.js';
import { MemoryRateLimitStore } from './memory-rate-limit.store.js';
import { MemoryReplayStore } from './memory-replay.store.js';
import { MemorySessionStore } from './memory-session.store.js';

const record = (tokenId: string, ownerId: string): PassportRecord => ({
  tokenId,
  ownerId,
  contractId: 'passport.test',
  metadata: { token_id: tokenId, not_before: '0' },
  revoked: false,
});

describe('FixedClock', () => {
  it('moves only when set or advanced', () => {
    const clock = new FixedClock(1000);
    expect(clock.nowMs()).toBe(1000);
    clock.advance(250);
    expect(clock.nowMs()).toBe(1250);
    clock.set(5);
    expect(clock.nowMs()).toBe(5);
  });
});

describe('MemoryChainReader', () => {
  const key = (b: number) => new Uint8Array(32).fill(b);
  const make = () =>
    new MemoryChainReader({
      contractId: 'passport.test',
      passports: [
        record('aaaaaaaaaaaa', 'alice.test'),
        record('bbbbbbbbbbbb', 'bob.test'),
        record('cccccccccccc', 'alice.test'),
      ],
      accounts: { 'alice.test': [key(1), key(2)] },
      chainTime: 42,
    });

  it('answers null / [] for what does not exist', async () => {
    const chain = make();
    expect(await chain.getPassport('zzzzzzzzzzzz')).toBeNull();
    expect(await chain.getAccountKeys('nobody.test')).toEqual([]);
    expect(await chain.listPassportsByOwner('nobody.test', { fromIndex: 0, limit: 10 })).toEqual([]);
  });

  it('lists in chain order with paging, by owner and overall', async () => {
    const chain = make();
    expect((await chain.listPassports({ fromIndex: 1, limit: 5 })).map((p) => p.tokenId)).toEqual([
      'bbbbbbbbbbbb',
      'cccccccccccc',
    ]);
    expect(
      (await chain.listPassportsByOwner('alice.test', { fromIndex: 0, limit: 1 })).map((p) => p.tokenId),
    ).toEqual(['aaaaaaaaaaaa']);
    expect(
      (await chain.listPassportsByOwner('alice.test', { fromIndex: 1, limit: 1 })).map((p) => p.tokenId),
    ).toEqual(['cccccccccccc']);
    expect(await chain.listPassports({ fromIndex: 0, limit: 0 })).toEqual([]);
  });

  it('returns copies of account keys, so callers cannot alter the chain', async () => {
    const chain = make();
    const keys = await chain.getAccountKeys('alice.test');
    keys[0][0] = 99;
    expect((await chain.getAccountKeys('alice.test'))[0][0]).toBe(1);
    expect(() => chain.setAccountKeys('x.test', [new Uint8Array(31)])).toThrow(/32 bytes/);
  });

  it('lets tests add, replace (keeping position), revoke and remove records', async () => {
    const chain = make();
    expect(() => chain.addPassport(record('aaaaaaaaaaaa', 'x'))).toThrow(/exists/);
    chain.replacePassport(record('aaaaaaaaaaaa', 'carol.test'));
    expect((await chain.getPassport('aaaaaaaaaaaa'))?.ownerId).toBe('carol.test');
    expect((await chain.listPassports({ fromIndex: 0, limit: 1 }))[0].tokenId).toBe('aaaaaaaaaaaa');
    chain.revokePassport('bbbbbbbbbbbb');
    const revoked = await chain.getPassport('bbbbbbbbbbbb');
    expect(revoked?.revoked).toBe(true);
    expect(revoked?.metadata.revoked).toBe('true');
    expect(() => chain.revokePassport('zzzzzzzzzzzz')).toThrow(/does not exist/);
    expect(chain.removePassport('cccccccccccc')).toBe(true);
    expect(await chain.getPassport('cccccccccccc')).toBeNull();
    chain.addPassport(record('dddddddddddd', 'dan.test'));
    expect((await chain.listPassports({ fromIndex: 0, limit: 10 })).map((p) => p.tokenId)).toEqual([
      'aaaaaaaaaaaa',
      'bbbbbbbbbbbb',
      'dddddddddddd',
    ]);
  });

  it('stores a frozen copy, so mutating the fixture does not change the chain', async () => {
    const fixture = { ...record('eeeeeeeeeeee', 'e.test'), metadata: { token_id: 'eeeeeeeeeeee' } };
    const chain = new MemoryChainReader({ contractId: 'c', passports: [fixture] });
    (fixture.metadata as Record<string, string>).not_after = '1';
    expect((await chain.getPassport('eeeeeeeeeeee'))?.metadata.not_after).toBeUndefined();
  });

  it('reports a fixed chain time or follows a clock', async () => {
    const chain = make();
    expect(await chain.chainTimeMs()).toBe(42);
    const clock = new FixedClock(7);
    chain.setChainTime(clock);
    clock.advance(3);
    expect(await chain.chainTimeMs()).toBe(10);
    // By default the system clock, as a live chain's time would be.
    const before = Date.now();
    const chainTime = await new MemoryChainReader({ contractId: 'c' }).chainTimeMs();
    expect(chainTime).toBeGreaterThanOrEqual(before);
    expect(chainTime).toBeLessThanOrEqual(Date.now());
  });

  it('throws ChainUnavailableError on every read during a simulated outage', async () => {
    const chain = make();
    chain.setUnavailable('timeout');
    await expect(chain.getPassport('aaaaaaaaaaaa')).rejects.toBeInstanceOf(ChainUnavailableError);
    await expect(chain.getAccountKeys('alice.test')).rejects.toMatchObject({ reason: 'timeout' });
    await expect(chain.chainTimeMs()).rejects.toBeInstanceOf(ChainUnavailableError);
    chain.setUnavailable(null);
    expect(await chain.getPassport('aaaaaaaaaaaa')).not.toBeNull();
  });
});

describe('MemoryReplayStore', () => {
  it('refuses a live key with its first-seen time and accepts it again after expiry', async () => {
    const store = new MemoryReplayStore();
    expect(await store.recordIfAbsent('k', 100, 200)).toEqual({ recorded: true });
    expect(await store.recordIfAbsent('k', 150, 900)).toEqual({ recorded: false, firstSeenAtMs: 100 });
    expect(await store.recordIfAbsent('k', 199, 900)).toEqual({ recorded: false, firstSeenAtMs: 100 });
    expect(await store.recordIfAbsent('k', 200, 900)).toEqual({ recorded: true });
    expect(await store.recordIfAbsent('k', 300, 900)).toEqual({ recorded: false, firstSeenAtMs: 200 });
  });

  it('records exactly one of N concurrent calls with one key', async () => {
    const store = new MemoryReplayStore();
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, () => store.recordIfAbsent('nonce', 1, 1000)),
    );
    expect(outcomes.filter((o) => o.recorded)).toHaveLength(1);
    expect(outcomes.filter((o) => !o.recorded)).toHaveLength(199);
  });

  it('when full, drops expired records first and keeps live ones', async () => {
    const store = new MemoryReplayStore({ maxEntries: 3, sweepIntervalMs: 0 });
    await store.recordIfAbsent('live-old', 0, 10_000);
    await store.recordIfAbsent('short', 0, 10);
    await store.recordIfAbsent('live', 0, 10_000);
    expect(await store.recordIfAbsent('new', 20, 10_000)).toEqual({ recorded: true });
    expect(store.size).toBe(3);
    expect((await store.recordIfAbsent('live-old', 30, 10_000)).recorded).toBe(false);
  });

  it('when full of live records, refuses the new one (REPLAY_STORE_FULL) and never evicts a live one', async () => {
    const store = new MemoryReplayStore({ maxEntries: 2 });
    await store.recordIfAbsent('a', 0, 1000);
    await store.recordIfAbsent('b', 1, 1000);
    await expect(store.recordIfAbsent('c', 2, 1000)).rejects.toMatchObject({ code: 'REPLAY_STORE_FULL' });
    expect(store.size).toBe(2);
    // Both live records still refuse their keys; a full store still reports a replay as a replay.
    expect(await store.recordIfAbsent('a', 3, 1000)).toEqual({ recorded: false, firstSeenAtMs: 0 });
    expect(await store.recordIfAbsent('b', 3, 1000)).toEqual({ recorded: false, firstSeenAtMs: 1 });
    expect(store.usage()).toMatchObject({ records: 2, maxRecords: 2, refusedFull: 1, lastFullAtMs: 2 });
    // Once a record expires there is room again.
    expect(await store.recordIfAbsent('c', 1000, 2000)).toEqual({ recorded: true });
  });

  it('never holds more than maxEntries under a flood of distinct keys, and keeps every live one', async () => {
    const store = new MemoryReplayStore({ maxEntries: 50 });
    const recorded: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const outcome = await store.recordIfAbsent(`k${i}`, i, i + 100).catch(() => ({ recorded: false }));
      if (outcome.recorded) recorded.push(i);
    }
    expect(store.size).toBeLessThanOrEqual(50);
    expect(recorded.length).toBeLessThan(1000);
    // Every record still live at the end refuses its key.
    for (const i of recorded.filter((n) => n + 100 > 999)) {
      expect((await store.recordIfAbsent(`k${i}`, 999, 2000)).recorded).toBe(false);
    }
  });

  it('bounds the live records per owner (REPLAY_QUOTA_EXCEEDED) and frees the quota as records expire', async () => {
    const store = new MemoryReplayStore({ sweepIntervalMs: 0 });
    const quota = { owner: 'attacker', maxPerOwner: 3 };
    for (let i = 0; i < 3; i++)
      expect((await store.recordIfAbsent(`x${i}`, i, 100 + i, quota)).recorded).toBe(true);
    await expect(store.recordIfAbsent('x3', 3, 200, quota)).rejects.toMatchObject({
      code: 'REPLAY_QUOTA_EXCEEDED',
    });
    // Another owner is not affected, nor is a live key of the full owner.
    expect((await store.recordIfAbsent('v0', 3, 200, { owner: 'victim', maxPerOwner: 3 })).recorded).toBe(
      true,
    );
    expect(await store.recordIfAbsent('x0', 4, 200, quota)).toEqual({ recorded: false, firstSeenAtMs: 0 });
    expect(store.usage().refusedQuota).toBe(1);
    expect((await store.recordIfAbsent('x3', 100, 300, quota)).recorded).toBe(true);
  });

  it('sweep removes only expired records', async () => {
    const store = new MemoryReplayStore();
    await store.recordIfAbsent('a', 0, 5);
    await store.recordIfAbsent('b', 0, 50);
    expect(store.sweep(5)).toBe(1);
    expect(store.size).toBe(1);
  });

  it('rejects a cap that is not a positive integer', () => {
    expect(() => new MemoryReplayStore({ maxEntries: 0 })).toThrow(RangeError);
    expect(() => new MemoryReplayStore({ maxEntries: Number.NaN })).toThrow(RangeError);
  });
});

describe('MemorySessionStore', () => {
  const session = (
    id: string,
    createdAtMs: number,
    expiresAtMs: number,
    tokenId = 'aaaaaaaaaaaa',
  ): SessionRecord => ({
    sessionId: id,
    tokenId,
    ownerId: 'alice.test',
    jti: `jti-${id}`,
    createdAtMs,
    expiresAtMs,
    closedAtMs: null,
    closeReason: null,
    federatedFrom: null,
  });

  it('the per-passport bound counts only open sessions: one logged out or expired in the middle frees its place', async () => {
    const store = new MemorySessionStore({ maxOpenPerPassport: 3 });
    await store.create(session('a', 0, 10_000));
    await store.create(session('b', 1, 10_000));
    await store.create(session('c', 2, 50)); // a shorter session (the passport's not_after)
    await store.close('b', 'logout', 3);
    await store.create(session('d', 60, 10_000)); // open: a, d (b closed, c expired)
    await store.create(session('e', 61, 10_000)); // open: a, d, e
    expect((await store.get('a'))?.closedAtMs).toBeNull();
    await store.create(session('f', 62, 10_000)); // the oldest open one (a) makes room
    expect(await store.get('a')).toMatchObject({ closedAtMs: 62, closeReason: 'superseded' });
    for (const id of ['d', 'e', 'f']) expect((await store.get(id))?.closedAtMs).toBeNull();
    // A session stored closed never counts.
    await store.create({ ...session('g', 63, 10_000), closedAtMs: 63, closeReason: 'logout' });
    await store.create(session('h', 64, 10_000));
    expect(await store.get('d')).toMatchObject({ closeReason: 'superseded' });
    for (const id of ['e', 'f', 'h']) expect((await store.get(id))?.closedAtMs).toBeNull();
  });

  it('creates, gets and refuses a duplicate id', async () => {
    const store = new MemorySessionStore();
    await store.create(session('s1', 0, 100));
    expect((await store.get('s1'))?.jti).toBe('jti-s1');
    expect(await store.get('nope')).toBeNull();
    await expect(store.create(session('s1', 1, 100))).rejects.toThrow(/exists/);
  });

  it('closes an open session once; unknown or closed → false', async () => {
    const store = new MemorySessionStore();
    await store.create(session('s1', 0, 100));
    expect(await store.close('nope', 'logout', 5)).toBe(false);
    expect(await store.close('s1', 'logout', 5)).toBe(true);
    expect(await store.close('s1', 'logout', 6)).toBe(false);
    expect(await store.get('s1')).toMatchObject({ closedAtMs: 5, closeReason: 'logout' });
  });

  it('lists newest first with total, counts open sessions, sweeps closed and expired', async () => {
    const store = new MemorySessionStore();
    await store.create(session('s1', 10, 100));
    await store.create(session('s2', 30, 200));
    await store.create(session('s3', 20, 50));
    await store.close('s2', 'logout', 40);
    const page = await store.list({ offset: 0, limit: 2 });
    expect(page.items.map((s) => s.sessionId)).toEqual(['s2', 's3']);
    expect(page.total).toBe(3);
    expect((await store.list({ offset: 2, limit: 2 })).items.map((s) => s.sessionId)).toEqual(['s1']);
    expect(await store.countOpen(49)).toBe(2);
    expect(await store.countOpen(50)).toBe(1);
    expect(await store.sweep(50)).toBe(2);
    expect((await store.list({ offset: 0, limit: 10 })).items.map((s) => s.sessionId)).toEqual(['s1']);
  });

  it('when full, drops closed/expired sessions, then refuses: an open session is never evicted', async () => {
    const store = new MemorySessionStore({ maxEntries: 2 });
    await store.create(session('old', 0, 1000, 'bbbbbbbbbbbb'));
    await store.create(session('short', 1, 5));
    await store.create(session('new', 10, 1000));
    expect(await store.get('old')).not.toBeNull();
    expect(await store.get('short')).toBeNull();
    await expect(store.create(session('newer', 11, 1000))).rejects.toBeInstanceOf(SessionCapacityError);
    expect(await store.get('newer')).toBeNull();
    expect(await store.get('old')).toMatchObject({ closedAtMs: null });
    expect(store.size).toBe(2);
  });

  it('a passport over its own bound closes its own oldest open sessions, never those of another', async () => {
    const store = new MemorySessionStore({ maxOpenPerPassport: 2 });
    await store.create(session('other', 0, 1000, 'bbbbbbbbbbbb'));
    await store.create(session('a1', 1, 1000));
    await store.create(session('a2', 2, 1000));
    await store.create(session('a3', 3, 1000));
    expect(await store.get('a1')).toMatchObject({ closedAtMs: 3, closeReason: 'superseded' });
    expect(await store.get('a2')).toMatchObject({ closedAtMs: null });
    expect(await store.get('other')).toMatchObject({ closedAtMs: null });
    expect(await store.countOpen(4)).toBe(3);
  });

  it('records renewals of open sessions only', async () => {
    const store = new MemorySessionStore();
    await store.create(session('s1', 0, 100));
    expect(await store.get('s1')).toMatchObject({ renewalCount: 0, lastRenewedAtMs: null });
    expect(await store.recordRenewal('s1', 10)).toBe(true);
    expect(await store.recordRenewal('s1', 20)).toBe(true);
    expect(await store.get('s1')).toMatchObject({ renewalCount: 2, lastRenewedAtMs: 20 });
    expect(await store.recordRenewal('s1', 100)).toBe(false);
    await store.close('s1', 'logout', 30);
    expect(await store.recordRenewal('s1', 40)).toBe(false);
    expect(await store.recordRenewal('nope', 40)).toBe(false);
  });
});

describe('MemoryRateLimitStore', () => {
  const policy = { capacity: 2, refillPerMs: 1 / 1000 };

  it('limits each key separately', async () => {
    const store = new MemoryRateLimitStore();
    expect((await store.take('a', policy, 0)).allowed).toBe(true);
    expect((await store.take('a', policy, 0)).allowed).toBe(true);
    expect(await store.take('a', policy, 0)).toEqual({ allowed: false, remaining: 0, retryAfterMs: 1000 });
    expect((await store.take('b', policy, 0)).allowed).toBe(true);
    expect((await store.take('a', policy, 1000)).allowed).toBe(true);
  });

  it('takeSync shares the buckets of take and answers the same', async () => {
    const store = new MemoryRateLimitStore();
    expect(store.takeSync('a', policy, 0)).toEqual({ allowed: true, remaining: 1, retryAfterMs: 0 });
    expect((await store.take('a', policy, 0)).allowed).toBe(true);
    expect(store.takeSync('a', policy, 0)).toEqual({ allowed: false, remaining: 0, retryAfterMs: 1000 });
    expect(store.takeSync('a', policy, 1000).allowed).toBe(true);
  });

  it('allows exactly capacity of N concurrent takes on one key', async () => {
    const store = new MemoryRateLimitStore();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => store.take('k', { capacity: 7, refillPerMs: 0 }, 0)),
    );
    expect(results.filter((r) => r.allowed)).toHaveLength(7);
  });

  it('when full, drops refilled buckets first, then the least recently used', async () => {
    const store = new MemoryRateLimitStore({ maxKeys: 2, sweepIntervalMs: 0 });
    await store.take('idle', policy, 0); // refilled by t=1000
    await store.take('busy', policy, 900);
    await store.take('busy', policy, 900);
    await store.take('new', policy, 1000);
    expect(store.size).toBe(2);
    expect(store.evictedActive).toBe(0);
    expect((await store.take('busy', policy, 1000)).allowed).toBe(false); // still limited: kept
    await store.take('newest', policy, 1000); // both remaining buckets active: LRU ('new') goes
    expect(store.evictedActive).toBe(1);
    expect(store.size).toBe(2);
  });

  it('never holds more than maxKeys under a flood of distinct keys', async () => {
    const store = new MemoryRateLimitStore({ maxKeys: 20 });
    for (let i = 0; i < 500; i++) await store.take(`ip${i}`, policy, 0);
    expect(store.size).toBe(20);
  });
});
