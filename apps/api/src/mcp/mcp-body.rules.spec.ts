import fc from 'fast-check';
import { hasInexactRequestId, holdsMoreNodesThan, nestsDeeperThan, sharedBatchId } from './mcp-body.rules.js';

/** The nesting of a JSON value, counted the obvious recursive way (a scalar is 0, `{}` and `[]` 1). */
const depthOf = (value: unknown): number =>
  typeof value !== 'object' || value === null
    ? 0
    : 1 + Math.max(0, ...(Array.isArray(value) ? value : Object.values(value)).map(depthOf));

describe('nestsDeeperThan', () => {
  it('agrees with the recursive depth for any JSON value and bound', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 10 }), (value, bound) => {
        expect(nestsDeeperThan(value, bound)).toBe(depthOf(value) > bound);
      }),
    );
  });

  it('answers for nesting far past the stack (100 000 levels) without recursion', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
    expect(nestsDeeperThan(deep, 64)).toBe(true);
    expect(nestsDeeperThan([[[]]], 3)).toBe(false);
    expect(nestsDeeperThan([[[]]], 2)).toBe(true);
  });
});

/** Object members and array items of a JSON value, counted the obvious recursive way. */
const nodesOf = (value: unknown): number =>
  typeof value !== 'object' || value === null
    ? 0
    : (Array.isArray(value) ? value : Object.values(value)).reduce<number>(
        (n, child) => n + 1 + nodesOf(child),
        0,
      );

describe('holdsMoreNodesThan', () => {
  it('agrees with the recursive count for any JSON value and bound', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 0, max: 40 }), (value, bound) => {
        expect(holdsMoreNodesThan(value, bound)).toBe(nodesOf(value) > bound);
      }),
    );
  });
});

describe('sharedBatchId', () => {
  it('finds the first two requests with one id; 1 and "1" differ; notifications and replies do not count', () => {
    expect(
      sharedBatchId([
        { method: 'a', id: 1 },
        { method: 'b', id: '1' },
      ]),
    ).toBeNull();
    expect(
      sharedBatchId([{ method: 'a', id: 2 }, { result: {}, id: 2 }, { method: 'n' }, { method: 'c', id: 2 }]),
    ).toEqual([0, 3]);
    expect(sharedBatchId({ method: 'a', id: 1 })).toBeNull();
  });

  it('names the first repeated id and its first use, as a pairwise comparison does (property)', () => {
    const request = fc.record({
      method: fc.constant('ping'),
      id: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom('0', '1', 'x')),
    });
    fc.assert(
      fc.property(fc.array(request, { maxLength: 8 }), (batch) => {
        // Pairwise, as JSON-RPC compares ids: same type and same value.
        const firstPair = (): [number, number] | null => {
          for (let j = 1; j < batch.length; j++)
            for (let i = 0; i < j; i++) if (batch[i].id === batch[j].id) return [i, j];
          return null;
        };
        expect(sharedBatchId(batch)).toEqual(firstPair());
      }),
    );
  });
});

describe('hasInexactRequestId', () => {
  it('is true exactly when a request of the body has a numeric id that is not a safe integer', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            method: fc.constantFrom('tools/list', undefined),
            id: fc.oneof(fc.double(), fc.integer(), fc.string(), fc.constant(2 ** 53), fc.constant(null)),
          }),
          { minLength: 1, maxLength: 5 },
        ),
        fc.boolean(),
        (messages, batched) => {
          const body = batched ? messages : messages[0];
          const considered = batched ? messages : [messages[0]];
          const expected = considered.some(
            (m) => m.method !== undefined && typeof m.id === 'number' && !Number.isSafeInteger(m.id),
          );
          expect(hasInexactRequestId(body)).toBe(expected);
        },
      ),
    );
  });
});
