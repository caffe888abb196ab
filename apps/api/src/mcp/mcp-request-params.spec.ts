/** The /mcp params check: -32602 with one line for a request that breaks its method's schema, else null. */
import fc from 'fast-check';
import { invalidParamsAnswer } from './mcp-request-params.js';

const request = (method: string, params: unknown, id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params });

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
    ['a batch (left to the SDK)', [request('resources/read', {})]],
    ['a method it does not check', request('initialize', { protocolVersion: 5 })],
    ['an id of another type', request('resources/read', {}, null)],
    ['not an object', 'resources/read'],
  ])('null for %s', (_label, body) => {
    expect(invalidParamsAnswer(body)).toBeNull();
  });

  it('with envelopeRequired, leaves a request without an object params._meta to the SDK', () => {
    expect(invalidParamsAnswer({ jsonrpc: '2.0', id: 1, method: 'tools/call' }, { envelopeRequired: true })).toBeNull();
    expect(invalidParamsAnswer(request('tools/call', { _meta: 'x' }), { envelopeRequired: true })).toBeNull();
    expect(invalidParamsAnswer(request('tools/call', { _meta: {} }), { envelopeRequired: true })?.error.code).toBe(-32602);
  });

  it('never throws, and any answer is -32602 with a one-line message and the request id', () => {
    const method = fc.constantFrom('resources/read', 'resources/list', 'resources/templates/list', 'tools/call', 'tools/list', 'ping');
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.record({ jsonrpc: fc.constant('2.0'), id: fc.oneof(fc.string(), fc.integer()), method, params: fc.anything() })), (body) => {
        const answer = invalidParamsAnswer(body);
        if (answer === null) return;
        expect(answer.error.code).toBe(-32602);
        expect(answer.error.message).toMatch(/^Invalid params: [^\n]+$/);
        expect(answer.id).toBe((body as { id: unknown }).id);
      }),
      { numRuns: 2000 },
    );
  });
});
