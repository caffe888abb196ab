import fc from 'fast-check';
import { ReplayLogIndex, type LoggedRecord } from './replay-log.index.js';

const record = (id: number, expiresAtMs: number): LoggedRecord => ({
  id,
  firstSeenAtMs: id * 10,
  expiresAtMs,
});

describe('ReplayLogIndex', () => {
  it('gets what was set, the newest record of a key, and nothing for an unknown key', () => {
    const index = new ReplayLogIndex();
    index.set('a', record(1, 500));
    index.set('b', record(2, 600));
    index.set('a', record(3, 900));
    expect([index.get('a'), index.get('b'), index.get('c'), index.size]).toEqual([
      record(3, 900),
      record(2, 600),
      undefined,
      2,
    ]);
  });

  it('learns a row of the log as its record, but keeps the times of a later-expiring record and takes the row id', () => {
    const index = new ReplayLogIndex();
    index.set('a', record(1, 500));
    index.set('b', record(2, 2000));
    index.forgetIds(); // the log went back: no id is trusted
    index.learn('a', record(3, 900)); // the log's record expires later: taken whole
    index.learn('b', record(4, 1000)); // an older row of a record kept: its times stay
    index.learn('c', record(5, 700));
    expect([index.get('a'), index.get('b'), index.get('c')]).toEqual([
      record(3, 900),
      { id: 4, firstSeenAtMs: 20, expiresAtMs: 2000 },
      record(5, 700),
    ]);
    index.set('d', record(6, 800));
    index.forgetIds();
    expect(index.get('d')).toEqual({ id: 0, firstSeenAtMs: 60, expiresAtMs: 800 });
  });

  it('keeps ids, times and expiries beyond 32 bits exactly', () => {
    const index = new ReplayLogIndex();
    const big = { id: 2 ** 40 + 7, firstSeenAtMs: 1_795_000_000_123, expiresAtMs: 1_795_086_400_123 };
    index.set('k', big);
    expect(index.get('k')).toEqual(big);
  });

  it('drops expired records from the oldest end up to the first live one; a key set again moves to the end', () => {
    const index = new ReplayLogIndex();
    index.set('a', record(1, 100));
    index.set('b', record(2, 100));
    index.set('c', record(3, 5000));
    index.set('a', record(4, 5000)); // a, live again, moves behind c
    index.set('d', record(5, 100));
    index.forgetExpiredOldest(1000);
    // b went; c is live and stops the walk (d, expired, waits behind it).
    expect([index.size, index.get('a'), index.get('b'), index.get('d')]).toEqual([
      3,
      record(4, 5000),
      undefined,
      record(5, 100),
    ]);
  });

  it('grows past its first slots keeping every record, and reuses the slots of forgotten ones', () => {
    const index = new ReplayLogIndex();
    for (let i = 1; i <= 5000; i++) index.set(`k${i}`, record(i, i % 2 ? 100 : 9000));
    expect(Array.from({ length: 5000 }, (_, i) => index.get(`k${i + 1}`))).toEqual(
      Array.from({ length: 5000 }, (_, i) => record(i + 1, (i + 1) % 2 ? 100 : 9000)),
    );
    index.forgetExpired(1000);
    for (let i = 5001; i <= 7500; i++) index.set(`k${i}`, record(i, 9000));
    expect(index.size).toBe(5000);
    expect([index.get('k2'), index.get('k3'), index.get('k7500')]).toEqual([
      record(2, 9000),
      undefined,
      record(7500, 9000),
    ]);
  });

  it('forgetIfExpired never drops a live record; forgetExpired scans the whole index', () => {
    const index = new ReplayLogIndex();
    index.set('live', record(1, 5000));
    index.set('old', record(2, 100));
    index.set('live2', record(3, 5000));
    index.set('old2', record(4, 100));
    index.forgetIfExpired('live', 1000);
    index.forgetIfExpired('old', 1000);
    expect([index.get('live'), index.get('old'), index.size]).toEqual([record(1, 5000), undefined, 3]);
    index.forgetExpired(1000);
    expect([index.get('live2'), index.get('old2'), index.size]).toEqual([record(3, 5000), undefined, 2]);
  });

  it('behaves as a Map of records under any sequence of operations (slots reused, arrays grown)', () => {
    type Op =
      | { kind: 'set'; key: number; expiresAtMs: number }
      | { kind: 'forgetIfExpired'; key: number; nowMs: number }
      | { kind: 'forgetExpiredOldest' | 'forgetExpired'; nowMs: number }
      | { kind: 'clear' };
    const key = fc.integer({ min: 0, max: 1500 });
    const time = fc.integer({ min: 0, max: 1000 });
    const op: fc.Arbitrary<Op> = fc.oneof(
      { weight: 800, arbitrary: fc.record({ kind: fc.constant('set' as const), key, expiresAtMs: time }) },
      {
        weight: 4,
        arbitrary: fc.record({ kind: fc.constant('forgetIfExpired' as const), key, nowMs: time }),
      },
      {
        weight: 60,
        arbitrary: fc.record({ kind: fc.constant('forgetExpiredOldest' as const), nowMs: time }),
      },
      { weight: 10, arbitrary: fc.record({ kind: fc.constant('forgetExpired' as const), nowMs: time }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
    );
    fc.assert(
      fc.property(fc.array(op, { minLength: 1000, maxLength: 4000 }), (ops) => {
        const index = new ReplayLogIndex();
        const model = new Map<string, LoggedRecord>();
        let id = 0;
        for (const o of ops) {
          if (o.kind === 'set') {
            const r = record(++id, o.expiresAtMs);
            index.set(`k${o.key}`, r);
            model.delete(`k${o.key}`);
            model.set(`k${o.key}`, r);
          } else if (o.kind === 'forgetIfExpired') {
            index.forgetIfExpired(`k${o.key}`, o.nowMs);
            if ((model.get(`k${o.key}`)?.expiresAtMs ?? Infinity) <= o.nowMs) model.delete(`k${o.key}`);
          } else if (o.kind === 'forgetExpiredOldest') {
            index.forgetExpiredOldest(o.nowMs);
            for (const [k, r] of model) {
              if (r.expiresAtMs > o.nowMs) break;
              model.delete(k);
            }
          } else if (o.kind === 'forgetExpired') {
            index.forgetExpired(o.nowMs);
            for (const [k, r] of model) if (r.expiresAtMs <= o.nowMs) model.delete(k);
          } else {
            index.clear();
            model.clear();
          }
        }
        expect(index.size).toBe(model.size);
        const keys = new Set(ops.flatMap((o) => ('key' in o ? [`k${o.key}`] : [])));
        expect([...keys].map((k) => index.get(k))).toEqual([...keys].map((k) => model.get(k)));
      }),
      { numRuns: 40 },
    );
  });
});
