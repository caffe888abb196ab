/**
 * The stateless era's routing (protocolEraOf) against the SDK's own standard-header rung: a request this
 * server routes to 'stateless-refused' goes to the SDK without this server's checks or its tool-call
 * bucket, so the SDK must refuse it (400 -32020); and one the SDK refuses on its headers must be routed
 * there, not met by this server's checks first. Driven with generated `Mcp-Name` headers (plain,
 * Base64 sentinels valid and not, padded) and bodies, through the SDK's real handler as the stateless
 * endpoint calls it (the same forwarded headers, the parsed body).
 */
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { type FastifyRequest } from 'fastify';
import fc from 'fast-check';
import { z } from 'zod';
import { protocolEraOf } from '../../apps/api/src/mcp/mcp-protocol-era.js';

const STATELESS = '2026-07-28';
const envelope = {
  'io.modelcontextprotocol/protocolVersion': STATELESS,
  'io.modelcontextprotocol/clientInfo': { name: 'laws', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

const handler = createMcpHandler(
  () => {
    const server = new McpServer(
      { name: 'laws', version: '0' },
      { capabilities: { tools: {}, resources: {} }, supportedProtocolVersions: [STATELESS] },
    );
    server.registerTool('echo', { inputSchema: z.object({}).passthrough() }, () => ({
      content: [{ type: 'text', text: 'ok' }],
    }));
    return server;
  },
  { legacy: 'reject' },
);
afterAll(async () => handler.close());

const FORWARDED = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-method', 'mcp-name'];

async function sdkRefusesOnHeaders(headers: Record<string, string>, body: unknown): Promise<boolean> {
  const forwarded = new Headers();
  for (const name of FORWARDED) if (headers[name] !== undefined) forwarded.set(name, headers[name]);
  const response = await handler.fetch(
    new Request('http://127.0.0.1/mcp', { method: 'POST', headers: forwarded }),
    { parsedBody: body },
  );
  const text = await response.text();
  return response.status === 400 && text.includes('-32020');
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
/** What Node's HTTP parser can hand over: latin1 text, no OWS at either end (kept inside). */
const latin1 = fc.string({
  unit: fc
    .integer({ min: 0x20, max: 0xff })
    .filter((c) => c !== 0x7f)
    .map((c) => String.fromCharCode(c)),
  maxLength: 12,
});
const nameText = fc.oneof(
  fc.constantFrom('echo', 'nope', 'doc:discovery', '', 'é', '=?base64?', '?=', '=?base64?=', 'a b'),
  fc.string({ maxLength: 8 }),
  latin1,
);
const sentinel = (inner: string) => `=?base64?${inner}?=`;
const headerFor = (bodyName: string) =>
  fc.oneof(
    fc.constant(bodyName),
    nameText,
    fc.constant(sentinel(b64(bodyName))),
    nameText.map((other) => sentinel(b64(other))),
    fc.string({ unit: fc.constantFrom(...'AZaz09+/=-_ .!'), maxLength: 10 }).map(sentinel),
    fc.constant(sentinel(b64(bodyName)).replace(/=+\?=$/, '?=')), // padding dropped: not canonical
    fc.constant(`=?base64?${Buffer.from([0xc3, 0x28]).toString('base64')}?=`), // not UTF-8
    latin1,
  );

it('routes to stateless-refused exactly the requests the SDK refuses on their standard headers', async () => {
  const seen = { refused: 0, served: 0 };
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('tools/call', 'resources/read', 'prompts/get', 'tasks/get', 'tools/list'),
      nameText.chain((bodyName) => fc.tuple(fc.constant(bodyName), fc.option(headerFor(bodyName)))),
      fc.constantFrom('string', 'number', 'absent'),
      fc.constantFrom('', ' ', '\t'),
      async (method, [bodyName, header], bodyKind, inner) => {
        const field = method === 'resources/read' ? 'uri' : method === 'tasks/get' ? 'taskId' : 'name';
        const params: Record<string, unknown> = { _meta: envelope };
        if (method === 'tools/call') params.arguments = {};
        if (bodyKind === 'string') params[field] = bodyName;
        if (bodyKind === 'number') params[field] = 7;
        const body = { jsonrpc: '2.0', id: 1, method, params };
        const headers: Record<string, string> = {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'mcp-protocol-version': STATELESS,
          'mcp-method': method,
        };
        // Node's parser strips OWS at either end of a field value (so do both sides); inside, it stays.
        if (header !== null)
          headers['mcp-name'] = header.length > 1 ? `${header[0]}${inner}${header.slice(1)}` : header;
        const ours = protocolEraOf({ method: 'POST', headers, body } as unknown as FastifyRequest);
        const sdk = await sdkRefusesOnHeaders(headers, body);
        seen[sdk ? 'refused' : 'served']++;
        expect({ ours, sdk }).toEqual({ ours: sdk ? 'stateless-refused' : 'stateless', sdk });
      },
    ),
    { numRuns: 3000 },
  );
  // Both answers drawn often: the law is not held by one side alone.
  expect(Math.min(seen.refused, seen.served)).toBeGreaterThan(300);
}, 120_000);
