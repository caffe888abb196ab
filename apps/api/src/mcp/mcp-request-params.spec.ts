/** The /mcp params check: -32602 with one line for a request that breaks its method's schema, else null. */
import fc from 'fast-check';
import { invalidInitializeAnswer, invalidParamsAnswer } from './mcp-request-params.js';

const request = (method: string, params: unknown, id: unknown = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});

describe('invalidParamsAnswer', () => {
  it.each([
    ['resources/read', { uri: null }, 'params.uri'],
    ['resources/read', {}, 'params.uri'],
    ['resources/list', { cursor: 5 }, 'params.cursor'],
    ['resources/templates/list', { cursor: [] }, 'params.cursor'],
    ['tools/call', { name: 'get_resource', arguments: [] }, 'params.arguments'],
    ['tools/call', {}, 'params.name'],
    ['tools/list', { cursor: {} }, 'params.cursor'],
  ])('%s %j is -32602 naming %s', (method, params, where) => {
    const answer = invalidParamsAnswer(request(method, params, 'a'));
    expect(answer).toEqual({ jsonrpc: '2.0', id: 'a', error: { code: -32602, message: expect.any(String) } });
    expect(answer!.error.message.startsWith(`Invalid params: ${where}: `)).toBe(true);
  });

  it.each([
    ['valid requests', request('resources/read', { uri: 'doc:discovery', _meta: { any: 1 } })],
    ['no params where none are needed', { jsonrpc: '2.0', id: 2, method: 'tools/list' }],
    ['a notification (no id)', { jsonrpc: '2.0', method: 'resources/read', params: {} }],
    [
      'a batch of valid requests',
      [request('resources/read', { uri: 'doc:discovery' }), request('tools/list', {})],
    ],
    ['a method it does not check', request('initialize', { protocolVersion: 5 })],
    ['an id of another type', request('resources/read', {}, null)],
    ['not an object', 'resources/read'],
  ])('null for %s', (_label, body) => {
    expect(invalidParamsAnswer(body)).toBeNull();
  });

  // Found by a probe: a batch's invalid params were answered -32603 with the validator's dump.
  it('refuses a batch holding a request with invalid params whole: -32602, id null, naming the member', () => {
    const answer = invalidParamsAnswer([
      request('tools/list', {}),
      request('resources/read', { uri: null }, 7),
    ]);
    expect(answer).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32602, message: expect.any(String) },
    });
    expect(answer!.error.message.startsWith('Invalid params in batch member [1]: params.uri: ')).toBe(true);
    // A probe: an unknown tool in a batch did not name its member.
    expect(
      invalidParamsAnswer([request('tools/list', {}), request('tools/call', { name: 'nope' })])!.error
        .message,
    ).toBe('Invalid params in batch member [1]: Unknown tool: "nope"');
  });

  it('reads a batch one level deep: a 30 000-deep nesting is no stack overflow', () => {
    const deep = JSON.parse(`${'['.repeat(30_000)}${']'.repeat(30_000)}`) as unknown;
    expect(invalidParamsAnswer(deep)).toBeNull();
    expect(invalidParamsAnswer([[request('resources/read', { uri: null })]])).toBeNull();
  });

  // Found by a probe: the sessioned era answered an unknown tool as a tool result (isError), the
  // stateless one as -32602; and a 10 000-character resources/read uri was echoed back in error.data.
  it('refuses an unknown tool and an over-long resources/read uri with -32602, the same in both eras', () => {
    expect(invalidParamsAnswer(request('tools/call', { name: 'nope' }, 3))).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32602, message: 'Unknown tool: "nope"' },
    });
    expect(invalidParamsAnswer(request('tools/call', { name: 'x'.repeat(500) }))!.error.message).toHaveLength(
      'Unknown tool: ""'.length + 64,
    );
    expect(
      invalidParamsAnswer(request('tools/call', { name: 'get_resource', arguments: { uri: 'doc:x' } })),
    ).toBeNull();
    // Found by a probe: JSON.stringify escapes C0 controls only; C1 and bidi controls came back raw.
    expect(invalidParamsAnswer(request('tools/call', { name: 'a\u009b31m\u202eb' }))!.error.message).toBe(
      'Unknown tool: "a?31m?b"',
    );
    expect(invalidParamsAnswer(request('resources/read', { uri: 'd'.repeat(513) }))!.error.message).toBe(
      'Invalid params: params.uri: at most 512 characters',
    );
    expect(invalidParamsAnswer(request('resources/read', { uri: 'd'.repeat(512) }))).toBeNull();
  });

  // docs/protocol.md §11: a task-augmented tools/call is -32601 in the sessioned era only; the stateless
  // revision has tasks only as an extension this server does not offer, so there the member is ignored.
  it('refuses a task-augmented tools/call -32601 in the sessioned era, and leaves it to run in the stateless one', () => {
    const call = request(
      'tools/call',
      { name: 'get_resource', arguments: { uri: 'doc:x' }, task: {}, _meta: {} },
      7,
    );
    expect(invalidParamsAnswer(call)).toMatchObject({ id: 7, error: { code: -32601 } });
    expect(invalidParamsAnswer(call, { envelopeRequired: true })).toBeNull();
  });

  it('with envelopeRequired, leaves a request without an object params._meta to the SDK', () => {
    expect(
      invalidParamsAnswer({ jsonrpc: '2.0', id: 1, method: 'tools/call' }, { envelopeRequired: true }),
    ).toBeNull();
    expect(invalidParamsAnswer(request('tools/call', { _meta: 'x' }), { envelopeRequired: true })).toBeNull();
    expect(
      invalidParamsAnswer(request('tools/call', { _meta: {} }), { envelopeRequired: true })?.error.code,
    ).toBe(-32602);
  });

  it('never throws, and any answer is -32602 with a one-line message and the request id', () => {
    const method = fc.constantFrom(
      'resources/read',
      'resources/list',
      'resources/templates/list',
      'tools/call',
      'tools/list',
      'ping',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.anything(),
          fc.record({
            jsonrpc: fc.constant('2.0'),
            id: fc.oneof(fc.string(), fc.integer()),
            method,
            params: fc.anything(),
          }),
        ),
        (body) => {
          const answer = invalidParamsAnswer(body);
          if (answer === null) return;
          expect(answer.error.code).toBe(-32602);
          expect(answer.error.message).toMatch(/^(Invalid params|Unknown tool): [^\n]+$/);
          expect(answer.id).toBe((body as { id: unknown }).id);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('invalidInitializeAnswer', () => {
  const params = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } };

  // Found by a probe: an initialize without an id was accepted (202) and made a session whose id
  // nobody received, holding a slot of both caps until the idle TTL.
  it('refuses an initialize sent as a notification: -32600, id null', () => {
    expect(invalidInitializeAnswer({ jsonrpc: '2.0', method: 'initialize', params })).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: initialize must be a request with an id' },
    });
    expect(invalidInitializeAnswer([{ jsonrpc: '2.0', method: 'initialize', params }])?.error.code).toBe(
      -32600,
    );
  });

  it('refuses an initialize with malformed params: -32602 naming the member, with its id', () => {
    const answer = invalidInitializeAnswer(request('initialize', { ...params, protocolVersion: 5 }, 'i'));
    expect(answer).toMatchObject({ id: 'i', error: { code: -32602 } });
    expect(answer!.error.message.startsWith('Invalid params: params.protocolVersion: ')).toBe(true);
    expect(invalidInitializeAnswer({ jsonrpc: '2.0', id: 1, method: 'initialize' })?.error.code).toBe(-32602);
  });

  // The bound is on the bytes of params' JSON: 8192 pass, 8193 are refused.
  it('takes params of exactly 8192 bytes of JSON and refuses 8193', () => {
    const sized = (bytes: number) => {
      const name = 'c'.repeat(bytes - Buffer.byteLength(JSON.stringify(params)) + 1);
      return request('initialize', { ...params, clientInfo: { name, version: '1' } });
    };
    expect(Buffer.byteLength(JSON.stringify(sized(8192).params))).toBe(8192);
    expect(invalidInitializeAnswer(sized(8192))).toBeNull();
    expect(invalidInitializeAnswer(sized(8193))).toMatchObject({ id: 1, error: { code: -32602 } });
  });

  it('null for a well-formed initialize and for anything that is not an initialize', () => {
    expect(invalidInitializeAnswer(request('initialize', params))).toBeNull();
    expect(invalidInitializeAnswer(request('tools/list', {}))).toBeNull();
    expect(invalidInitializeAnswer(undefined)).toBeNull();
    expect(invalidInitializeAnswer([null, 'x'])).toBeNull();
  });
});
