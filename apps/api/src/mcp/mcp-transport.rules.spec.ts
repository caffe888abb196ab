import { sessionedTransportRefuses, unsupportedSessionedVersion } from './mcp-transport.rules.js';

const ACCEPT = 'application/json, text/event-stream';
const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
const initialize = {
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '0' } },
};

describe('sessionedTransportRefuses: what the v1 transport refuses whole (then a batch is not charged)', () => {
  it.each<[string, Record<string, string | string[]>, unknown, boolean, boolean]>([
    ['a batch of pings on a session', { accept: ACCEPT }, [ping(1), ping(2)], true, false],
    [
      'the media types in another order, with parameters',
      { accept: 'text/event-stream;q=0.9, application/json' },
      [ping(1)],
      true,
      false,
    ],
    [
      'Accept split over two header lines',
      { accept: ['application/json', 'text/event-stream'] },
      [ping(1)],
      true,
      false,
    ],
    [
      'a served revision named',
      { accept: ACCEPT, 'mcp-protocol-version': '2025-03-26' },
      [ping(1)],
      true,
      false,
    ],
    ['an initialize alone, no session', { accept: ACCEPT }, initialize, false, false],
    ['Accept without text/event-stream', { accept: 'application/json' }, [ping(1)], true, true],
    ['Accept */* (the SDK looks for both names)', { accept: '*/*' }, [ping(1)], true, true],
    ['no Accept', {}, [ping(1)], true, true],
    [
      'a revision the transport does not serve',
      { accept: ACCEPT, 'mcp-protocol-version': '1999-01-01' },
      [ping(1)],
      true,
      true,
    ],
    ['an initialize on a session', { accept: ACCEPT }, [initialize, ping(1)], true, true],
    ['an initialize with other messages, no session', { accept: ACCEPT }, [initialize, ping(1)], false, true],
  ])('%s', (_, headers, body, onSession, refused) => {
    expect(sessionedTransportRefuses({ headers, body }, onSession)).toBe(refused);
  });

  // Without a session the SDK does not read the header (an initialize names its revision in its params).
  it('an unserved MCP-Protocol-Version does not refuse an initialize', () => {
    const headers = { accept: ACCEPT, 'mcp-protocol-version': '1999-01-01' };
    expect(sessionedTransportRefuses({ headers, body: initialize }, false)).toBe(false);
  });
});

describe('unsupportedSessionedVersion: the MCP-Protocol-Version the transport answers 400', () => {
  const headers = { accept: ACCEPT, 'mcp-protocol-version': '1999-01-01' };

  it('names an unserved revision on a request of a session, on every method', () => {
    for (const method of ['POST', 'GET', 'DELETE'])
      expect(
        unsupportedSessionedVersion({ method, headers, body: method === 'POST' ? ping(1) : undefined }),
      ).toBe('1999-01-01');
    expect(
      unsupportedSessionedVersion({ method: 'POST', headers: { accept: ACCEPT }, body: ping(1) }),
    ).toBeUndefined();
  });

  // An initialize negotiates its revision in its params: a fleet's initialize (served by serveOnce, which
  // asks this) with such a header must still open a session, as on one instance.
  it('leaves an initialize alone, in a batch too', () => {
    expect(unsupportedSessionedVersion({ method: 'POST', headers, body: initialize })).toBeUndefined();
    expect(
      unsupportedSessionedVersion({ method: 'POST', headers, body: [initialize, ping(1)] }),
    ).toBeUndefined();
  });
});
