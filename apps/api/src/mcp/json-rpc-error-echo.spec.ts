import fc from 'fast-check';
import { boundedJsonRpcErrorText, ECHO_MESSAGE_MAX } from './json-rpc-error-echo.js';

const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/u;

describe('boundedJsonRpcErrorText', () => {
  it('leaves every string of the error printable and bounded, and the rest of the answer as it was', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 2000 }),
        fc.jsonValue({ maxDepth: 6 }),
        fc.oneof(fc.integer(), fc.string(), fc.constant(null)),
        (message, data, id) => {
          const text = JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32020, message, data } });
          const bounded = JSON.parse(boundedJsonRpcErrorText(text)) as {
            jsonrpc: string;
            id: unknown;
            error: { code: number; message: string };
          };
          expect(bounded.jsonrpc).toBe('2.0');
          expect(bounded.id).toEqual(id);
          expect(bounded.error.code).toBe(-32020);
          expect(bounded.error.message.length).toBeLessThanOrEqual(ECHO_MESSAGE_MAX);
          expect(UNPRINTABLE.test(JSON.stringify(bounded.error))).toBe(false);
        },
      ),
    );
  });

  it('keeps a printable short message and small data exactly', () => {
    const text = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'] } },
    });
    expect(JSON.parse(boundedJsonRpcErrorText(text))).toEqual(JSON.parse(text));
  });

  it('returns text that is not a JSON-RPC error untouched', () => {
    for (const text of ['', 'not json', '[1,2]', '{"jsonrpc":"2.0","id":1,"result":{}}'])
      expect(boundedJsonRpcErrorText(text)).toBe(text);
  });
});
