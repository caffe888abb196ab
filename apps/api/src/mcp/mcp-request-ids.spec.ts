import fc from 'fast-check';
import { claimRequestIds, releaseIdsOnAnswer, requestIdsOf, transportServes } from './mcp-request-ids.js';

describe('requestIdsOf', () => {
  it('lists the ids of requests only: not notifications, replies or other shapes', () => {
    expect(
      requestIdsOf([
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', id: '1', method: 'ping' },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, result: {} },
        { jsonrpc: '2.0', id: null, method: 'ping' },
        null,
        [{ jsonrpc: '2.0', id: 3, method: 'ping' }],
      ]),
    ).toEqual([1, '1']);
    expect(requestIdsOf({ jsonrpc: '2.0', id: 'x', method: 'ping' })).toEqual(['x']);
    expect(requestIdsOf(undefined)).toEqual([]);
  });
});

describe('claimRequestIds', () => {
  it('refuses an id another claim of the session holds until it is released; 1 and "1" differ', () => {
    const session = {};
    const first = claimRequestIds(session, [1, 'a']);
    expect(first.claimed).toBe(true);
    expect(claimRequestIds(session, ['b', 'a'])).toEqual({ claimed: false, id: 'a' });
    expect(claimRequestIds(session, ['1']).claimed).toBe(true);
    expect(claimRequestIds({}, [1]).claimed).toBe(true); // another session
    if (first.claimed) {
      first.release();
      first.release(); // twice is harmless
    }
    expect(claimRequestIds(session, [1, 'a']).claimed).toBe(true);
  });

  it('all or none: a refused claim holds nothing, and released claims leave every id free', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.array(fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom('0', 'a')), { maxLength: 4 }),
        ),
        (batches) => {
          const session = {};
          const held = new Set<string | number>();
          const releases: Array<() => void> = [];
          for (const ids of batches) {
            const unique = [...new Set(ids)];
            const claim = claimRequestIds(session, unique);
            const conflict = unique.find((id) => held.has(id));
            expect(claim.claimed).toBe(conflict === undefined);
            if (claim.claimed) {
              for (const id of unique) held.add(id);
              releases.push(claim.release);
            } else expect(claim.id).toBe(conflict);
          }
          for (const release of releases) release();
          const all = [...new Set(batches.flat())];
          expect(claimRequestIds(session, all).claimed).toBe(true);
        },
      ),
    );
  });

  // A review: a client that gave up on a request (its POST closed) and sent it again with its id while
  // the first was still being served met the takeover again. Such an id stays held until answered.
  it('an id the transport still serves when its POST ends stays held until the transport has answered it', async () => {
    const mapping = new Map<string | number, string>();
    const sent: unknown[] = [];
    const transport = {
      _webStandardTransport: { _requestToStreamMapping: mapping },
      send: async (message: unknown) => {
        sent.push(message);
      },
    };
    releaseIdsOnAnswer(transport);
    releaseIdsOnAnswer(transport); // once per transport
    const claim = claimRequestIds(transport, [7, 8]);
    mapping.set(7, 's').set(8, 's'); // taken in by the transport, one stream for the batch
    if (!claim.claimed) throw new Error('not claimed');
    claim.release((id) => transportServes(transport, id));
    expect(claimRequestIds(transport, [7])).toEqual({ claimed: false, id: 7 });
    // 7 answered, the batch's stream still open: the transport holds both ids yet.
    await transport.send({ jsonrpc: '2.0', id: 7, result: {} });
    expect(claimRequestIds(transport, [7])).toEqual({ claimed: false, id: 7 });
    // The last answer: the transport lets both go, and so do the claims.
    mapping.clear();
    await transport.send({ jsonrpc: '2.0', id: 8, result: {} });
    expect(sent).toHaveLength(2);
    expect(claimRequestIds(transport, [7, 8]).claimed).toBe(true);
    expect(transportServes({}, 7)).toBe(false); // no internals: nothing held past the POST
  });
});
