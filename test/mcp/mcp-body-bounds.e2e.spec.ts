/**
 * What /mcp does with bodies a probe sent (raw HTTP against the real app): bodies that cannot be read
 * are JSON-RPC errors like every other MCP transport failure; nesting past the SDKs' recursion, batch
 * requests sharing an id and oversized initialize params are refused before either SDK reads them; a
 * batch costs its messages' worth of the /mcp burst; and the sessioned era's surface answers as MCP
 * says (no "MCP error" prefix, a cursor on tools/list, a task-augmented call).
 */
import { MCP_SESSION_REGISTRY } from '../../apps/api/src/mcp/mcp.di-tokens.js';
import { type McpSessionRegistry } from '../../apps/api/src/mcp/mcp-session.registry.js';
import { MCP_HEADERS, INITIALIZE, openRawSession, probe } from './support/mcp-probe.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { contractClient } from '../support/contract-fetch.js';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** The JSON-RPC messages of an answer sent as JSON or as SSE events. */
const messagesOf = (body: unknown): Array<Record<string, unknown>> => {
  if (typeof body !== 'string') return [body].flat() as Array<Record<string, unknown>>;
  return body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
};

/** The one JSON-RPC message of an answer. */
const messageOf = (body: unknown): Record<string, unknown> => {
  const messages = messagesOf(body);
  expect(messages).toHaveLength(1);
  return messages[0];
};

const sessionHeaders = (id: string) => ({ 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' });

/** A raw POST to /mcp with a body sent as given. */
async function rawPost(baseUrl: string, headers: Record<string, string>, body: string) {
  const response = await fetch(`${baseUrl}/mcp`, { method: 'POST', headers, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text };
}

describe('/mcp: a body that cannot be read is a JSON-RPC error, not the REST envelope', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ STORE: 'memory' });
  });
  afterAll(async () => t.close());

  it.each([
    ['not JSON', MCP_HEADERS, '{"jsonrpc":', 400, -32700],
    ['a forbidden key', MCP_HEADERS, '{"__proto__":{"x":1}}', 400, -32700],
    ['text/plain', { ...MCP_HEADERS, 'content-type': 'text/plain' }, '{}', 415, -32000],
    [
      'another charset',
      { ...MCP_HEADERS, 'content-type': 'application/json; charset=iso-8859-1' },
      '{}',
      415,
      -32000,
    ],
    ['over 64 KiB', MCP_HEADERS, JSON.stringify({ x: 'a'.repeat(70 * 1024) }), 400, -32000],
  ])(
    '%s: HTTP status as before, body {jsonrpc, error, id: null}',
    async (_name, headers, body, status, code) => {
      const reply = await rawPost(t.baseUrl, headers, body);
      expect(reply.status).toBe(status);
      expect(JSON.parse(reply.text)).toEqual({
        jsonrpc: '2.0',
        error: { code, message: expect.any(String) },
        id: null,
      });
      expect(reply.headers.get('x-request-id')).toMatch(ULID);
      expect(reply.headers.get('cache-control')).toBe('no-store');
    },
  );

  // A review: the served document still said 415 was an ErrorResponse, so a contract-checking client
  // refused the answer.
  it('the served OpenAPI document describes these answers', async () => {
    const request = contractClient(t.baseUrl);
    const headers = { accept: MCP_HEADERS.accept };
    const media = await request('/mcp', {
      method: 'POST',
      headers: { ...headers, 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(media.status).toBe(415);
    const parse = await request('/mcp', { method: 'POST', headers: MCP_HEADERS, body: '{"jsonrpc":' });
    expect(parse.status).toBe(400);
  });

  // A probe: answers of POST, GET and DELETE /mcp the served document did not describe (200 without
  // a media type, 202, 406, DELETE's body failures, GET and DELETE 429).
  it('every answer of the transport is one the served OpenAPI document describes', async () => {
    const request = contractClient(t.baseUrl);
    const init = await request('/mcp', {
      method: 'POST',
      headers: MCP_HEADERS,
      body: JSON.stringify(INITIALIZE),
    });
    expect(init.status).toBe(200);
    const session = {
      'mcp-session-id': init.headers.get('mcp-session-id') ?? '',
      'mcp-protocol-version': '2025-11-25',
    };
    const notified = await request('/mcp', {
      method: 'POST',
      headers: { ...MCP_HEADERS, ...session },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    expect(notified.status).toBe(202);
    const listed = await request('/mcp', {
      method: 'POST',
      headers: { ...MCP_HEADERS, ...session },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(listed.status).toBe(200);
    const unacceptable = await request('/mcp', {
      method: 'POST',
      headers: { ...MCP_HEADERS, ...session, accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    });
    expect(unacceptable.status).toBe(406);
    const badDelete = await request('/mcp', {
      method: 'DELETE',
      headers: { ...session, 'content-type': 'application/json' },
      body: '{',
    });
    expect([badDelete.status, badDelete.body]).toEqual([400, expect.objectContaining({ jsonrpc: '2.0' })]);
    const mediaDelete = await request('/mcp', {
      method: 'DELETE',
      headers: { ...session, 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(mediaDelete.status).toBe(415);
    const ended = await request('/mcp', { method: 'DELETE', headers: session });
    expect(ended.status).toBe(200);
  });

  // A probe: on a session, GET /mcp answers two statuses the served document did not describe as
  // sent: a second event stream is 409 (one per session), and an MCP-Protocol-Version the transport
  // does not serve is 400 as a JSON-RPC error, where the document allowed only the app envelope.
  it("GET's answers with a session are ones the served OpenAPI document describes", async () => {
    const request = contractClient(t.baseUrl);
    const session = { accept: 'text/event-stream', 'mcp-session-id': await openRawSession(t.baseUrl) };
    const open = new AbortController();
    const stream = await fetch(`${t.baseUrl}/mcp`, { headers: session, signal: open.signal });
    try {
      expect(stream.status).toBe(200);
      const second = await request('/mcp', { headers: session });
      expect([second.status, second.body]).toEqual([
        409,
        expect.objectContaining({ jsonrpc: '2.0', id: null }),
      ]);
      const version = await request('/mcp', {
        headers: { ...session, 'mcp-protocol-version': '1999-01-01' },
      });
      expect([version.status, version.body]).toEqual([
        400,
        expect.objectContaining({ jsonrpc: '2.0', id: null }),
      ]);
    } finally {
      open.abort();
    }
  });

  it('a bare GET keeps the envelope the specification gives it', async () => {
    const response = await fetch(`${t.baseUrl}/mcp`);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      'MCP_TRANSPORT_SESSION_REQUIRED',
    );
  });
});

describe('/mcp: body shapes refused before either SDK reads them', () => {
  let t: TestApp;
  let sessionId: string;
  beforeAll(async () => {
    t = await startTestApp({ STORE: 'memory' });
    sessionId = await openRawSession(t.baseUrl);
  });
  afterAll(async () => t.close());

  // The v1 SDK's schema check overflowed the stack on a reply nested 9 000 levels deep and sent
  // "RangeError: Maximum call stack size exceeded" in error.data.
  it.each(['result', 'error'])(
    'a client reply whose %s nests 9 000 levels: 400 -32600, no internal text',
    async (member) => {
      const deep = `${'{"x":'.repeat(9000)}1${'}'.repeat(9000)}`;
      const value = member === 'result' ? deep : `{"code":1,"message":"m","data":${deep}}`;
      const reply = await rawPost(
        t.baseUrl,
        { ...MCP_HEADERS, ...sessionHeaders(sessionId) },
        `{"jsonrpc":"2.0","id":5,"${member}":${value}}`,
      );
      expect(reply.status).toBe(400);
      expect(JSON.parse(reply.text)).toEqual({
        jsonrpc: '2.0',
        error: { code: -32600, message: 'Invalid Request: the body nests deeper than 64 levels' },
        id: null,
      });
    },
  );

  it('64 levels pass on to the SDK; 65 are refused', async () => {
    const nested = (levels: number) =>
      `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":${'{"x":'.repeat(levels - 2)}1${'}'.repeat(levels - 2)}}}`;
    const headers = { ...MCP_HEADERS, ...sessionHeaders(sessionId) };
    const atBound = await rawPost(t.baseUrl, headers, nested(64));
    expect(atBound.status).toBe(200);
    expect(messageOf(atBound.text)).toMatchObject({ id: 6, result: { tools: expect.any(Array) } });
    const past = await rawPost(t.baseUrl, headers, nested(65));
    expect(past.status).toBe(400);
  });

  // A complexity probe: one message whose _meta held 5 400 keys (53 KB) cost 35–65 ms of the event loop
  // for one burst token, 20–30 times a plain message.
  it('a body of more than 2048 members and items in all: 400 -32600 before the SDK; 2048 pass', async () => {
    const wide = (keys: number) => {
      const meta: Record<string, number> = {};
      for (let i = 0; i < keys; i++) meta[`k${i}`] = 1;
      // 4 members of the message, 1 of params, and the keys of _meta.
      return JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: meta } });
    };
    const headers = { ...MCP_HEADERS, ...sessionHeaders(sessionId) };
    const atBound = await rawPost(t.baseUrl, headers, wide(2048 - 5));
    expect(atBound.status).toBe(200);
    const past = await rawPost(t.baseUrl, headers, wide(2048 - 4));
    expect(past.status).toBe(400);
    expect(JSON.parse(past.text)).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32600,
        message: 'Invalid Request: the body holds more than 2048 object members and array items in all',
      },
      id: null,
    });
  });

  it('a batch whose requests share an id: 400 -32600 naming both (the SDK answered only one)', async () => {
    const r = await probe(t.baseUrl, {
      headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-03-26' },
      body: [
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', id: '1', method: 'ping' },
        { jsonrpc: '2.0', id: 1, method: 'resources/templates/list' },
      ],
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Invalid Request: batch members [0] and [2] share one id' },
      id: null,
    });
  });

  it('a batch with distinct ids (1 and "1" differ) is answered whole', async () => {
    const r = await probe(t.baseUrl, {
      headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-03-26' },
      body: [
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', id: '1', method: 'ping' },
      ],
    });
    expect(r.status).toBe(200);
    expect(messagesOf(r.body).map((answer) => answer.id)).toEqual(expect.arrayContaining([1, '1']));
    expect(messagesOf(r.body)).toHaveLength(2);
  });
});

describe('/mcp: initialize params are kept for the session, so they are bounded', () => {
  it('params over 8192 bytes of JSON: 400 -32602 and no session; a usual initialize still opens one', async () => {
    const t = await startTestApp({ STORE: 'memory' });
    try {
      const registry = t.app.get<McpSessionRegistry>(MCP_SESSION_REGISTRY);
      const big = {
        ...INITIALIZE,
        params: { ...INITIALIZE.params, capabilities: { experimental: { blob: { x: 'a'.repeat(60_000) } } } },
      };
      const refused = await probe(t.baseUrl, { body: big });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({
        jsonrpc: '2.0',
        error: {
          code: -32602,
          message: expect.stringMatching(
            /^Invalid params: initialize params are \d+ bytes of JSON, at most 8192/,
          ),
        },
        id: 1,
      });
      expect(registry.size + registry.pending).toBe(0);
      await openRawSession(t.baseUrl);
      expect(registry.size).toBe(1);
    } finally {
      await t.close();
    }
  });
});

describe('/mcp: a batch costs one /mcp request per message', () => {
  // The burst is 200, refilled at 1101 per minute (~18 a second): the margins below are seconds of refill.
  it('a batch the bucket cannot hold whole is 429 and takes only its first token; before the fix a batch cost one token', async () => {
    const t = await startTestApp({ STORE: 'memory' });
    try {
      const id = await openRawSession(t.baseUrl);
      const headers = { 'mcp-session-id': id, 'mcp-protocol-version': '2025-03-26' };
      const batch = Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }));
      const first = await probe(t.baseUrl, { headers, body: batch });
      expect(first.status).toBe(200);
      // 50 single requests leave about 49 tokens: a second batch of 100 is 51 short (~2.8 s of refill).
      const singles = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          probe(t.baseUrl, { headers, body: { jsonrpc: '2.0', id: `s${i}`, method: 'ping' } }),
        ),
      );
      expect(singles.every((r) => r.status === 200)).toBe(true);
      const second = await probe(t.baseUrl, { headers, body: batch });
      expect(second.status).toBe(429);
      expect(second.body).toEqual({
        jsonrpc: '2.0',
        error: {
          code: -32000,
          message: expect.stringMatching(
            /^Rate limit exceeded on \/mcp: a batch costs one request per message, this one 100, \d+ more are available$/,
          ),
        },
        id: null,
      });
      expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // Refused having taken only its first message's token: what is left still serves single requests.
      const single = await probe(t.baseUrl, { headers, body: { jsonrpc: '2.0', id: 'p', method: 'ping' } });
      expect(single.status).toBe(200);
    } finally {
      await t.close();
    }
  });

  // Left open by earlier sessions: a batch sent to a session that had ended (expired, deleted) took the
  // tokens of all its messages before the 404, so the client that opened a new session found its burst
  // spent and its batch, sent again, refused.
  it('a batch to an unknown or ended session is 404 having spent one token, not a batch of them', async () => {
    const t = await startTestApp({ STORE: 'memory' });
    try {
      const ended = await openRawSession(t.baseUrl);
      const deleted = await fetch(`${t.baseUrl}/mcp`, {
        method: 'DELETE',
        headers: { 'mcp-session-id': ended, 'mcp-protocol-version': '2025-03-26' },
      });
      expect(deleted.status).toBe(200);
      const batch = Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }));
      // Three batches of 100 to dead sessions: 300 tokens, more than the burst of 200, were they charged.
      for (const id of [ended, ended, '00000000-0000-4000-8000-000000000000']) {
        const refused = await probe(t.baseUrl, {
          headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-03-26' },
          body: batch,
        });
        expect(refused.status).toBe(404);
      }
      // The client opens a new session and sends its batch again: the burst still holds it.
      const id = await openRawSession(t.baseUrl);
      const again = await probe(t.baseUrl, {
        headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-03-26' },
        body: batch,
      });
      expect(again.status).toBe(200);
    } finally {
      await t.close();
    }
  });

  // A probe (after b0d9a28): batches refused for what they hold, by our rules or by the SDK's transport,
  // still took a token per message, so two of them spent the burst and the corrected batch was 429.
  const pings = (n: number, from = 0) =>
    Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: from + i, method: 'ping' }));
  const read = (id: number, uri: string) => ({
    jsonrpc: '2.0',
    id: `r${id}`,
    method: 'resources/read',
    params: { uri },
  });
  it.each<[string, { headers?: Record<string, string>; body: unknown[]; session?: boolean }, number]>([
    ['an invalid member', { body: [{}, ...pings(99)] }, 400],
    [
      '17 document reads',
      { body: [...Array.from({ length: 17 }, (_, i) => read(i, 'passport:protocol')), ...pings(83)] },
      400,
    ],
    [
      '3 reads of the OpenAPI document',
      { body: [...[0, 1, 2].map((i) => read(i, 'openapi:swagger')), ...pings(97)] },
      400,
    ],
    [
      'a member with invalid params',
      { body: [{ jsonrpc: '2.0', id: 'bad', method: 'resources/read', params: {} }, ...pings(99)] },
      200,
    ],
    [
      'an unsupported MCP-Protocol-Version',
      { headers: { 'mcp-protocol-version': '1999-01-01' }, body: pings(100) },
      400,
    ],
    [
      'an Accept without text/event-stream',
      { headers: { accept: 'application/json' }, body: pings(100) },
      406,
    ],
    ['an initialize on a session', { body: [{ ...INITIALIZE, id: 'init' }, ...pings(99)] }, 400],
    [
      'an initialize with other messages, no session',
      { body: [{ ...INITIALIZE, id: 'init' }, ...pings(99)], session: false },
      400,
    ],
  ])(
    'a batch of 100 with %s is refused (%#) having spent one token, not a batch of them',
    async (_, refused, status) => {
      const t = await startTestApp({ STORE: 'memory' });
      try {
        const id = await openRawSession(t.baseUrl);
        const headers = { 'mcp-session-id': id, 'mcp-protocol-version': '2025-03-26' };
        // Three refused batches of 100: 300 tokens, more than the burst of 200, were they charged.
        for (let i = 0; i < 3; i++) {
          const answer = await probe(t.baseUrl, {
            headers: { ...(refused.session === false ? {} : headers), ...refused.headers },
            body: refused.body,
          });
          expect(answer.status).toBe(status);
          if (status === 200) expect(messageOf(answer.body).error).toMatchObject({ code: -32602 });
        }
        // The client corrects its batch: the burst still holds it.
        expect((await probe(t.baseUrl, { headers, body: pings(100) })).status).toBe(200);
      } finally {
        await t.close();
      }
    },
  );

  // A review and a probe: the SDK refuses a batch of more than 100 messages, after the batch had taken
  // its tokens (a batch of 150 drained the burst; one of 201 could never fit, and its 429 came back
  // on every retry). Now refused first, spending one token like any request.
  it.each([101, 150, 201])(
    'a batch of %i messages is 400 -32600 before it spends the burst',
    async (size) => {
      const t = await startTestApp({ STORE: 'memory' });
      try {
        const id = await openRawSession(t.baseUrl);
        const headers = { 'mcp-session-id': id, 'mcp-protocol-version': '2025-03-26' };
        const big = Array.from({ length: size }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }));
        const refused = await probe(t.baseUrl, { headers, body: big });
        expect(refused.status).toBe(400);
        expect(refused.body).toEqual({
          jsonrpc: '2.0',
          error: { code: -32600, message: 'Invalid Request: a batch holds at most 100 messages' },
          id: null,
        });
        // The burst is whole but for the two requests: a batch of 100 still fits at once.
        const batch = Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }));
        expect((await probe(t.baseUrl, { headers, body: batch })).status).toBe(200);
      } finally {
        await t.close();
      }
    },
  );
});

describe('/mcp: the sessioned surface answers as MCP says', () => {
  let t: TestApp;
  let sessionId: string;
  beforeAll(async () => {
    t = await startTestApp({ STORE: 'memory' });
    sessionId = await openRawSession(t.baseUrl);
  });
  afterAll(async () => t.close());

  const call = async (body: Record<string, unknown>) => {
    const r = await probe(t.baseUrl, {
      headers: sessionHeaders(sessionId),
      body: { jsonrpc: '2.0', ...body },
    });
    return { status: r.status, message: messageOf(r.body) };
  };

  it('a resources/read miss is -32002 "Resource not found", without the v1 SDK\'s "MCP error -32002: " prefix', async () => {
    const { message } = await call({ id: 1, method: 'resources/read', params: { uri: 'doc:nothing' } });
    expect(message.error).toEqual({
      code: -32002,
      message: 'Resource not found',
      data: { uri: 'doc:nothing' },
    });
  });

  it.each(['resources/list', 'resources/templates/list', 'tools/list'])(
    'a cursor on %s (answered in one page) is -32602 with a plain message',
    async (method) => {
      const { message } = await call({ id: 2, method, params: { cursor: 'abc' } });
      expect(message.error).toEqual({
        code: -32602,
        message: 'Invalid cursor: this list is answered in one page, and no cursor was issued',
      });
    },
  );

  it('a task-augmented tools/call (every tool says taskSupport "forbidden") is -32601, not -32603', async () => {
    const tools = await call({ id: 3, method: 'tools/list' });
    const listed = (tools.message.result as { tools: Array<{ name: string; execution?: unknown }> }).tools;
    expect(listed.length).toBeGreaterThan(0);
    for (const tool of listed) expect(tool.execution).toEqual({ taskSupport: 'forbidden' });
    const { message } = await call({
      id: 4,
      method: 'tools/call',
      params: { name: 'get_resource', arguments: { uri: 'doc:discovery' }, task: { ttl: 1000 } },
    });
    expect(message.error).toEqual({
      code: -32601,
      message: 'Method not found: tool "get_resource" does not run as a task (taskSupport "forbidden")',
    });
    // In a batch too, with the member's own code (a probe: it was rewritten as -32602).
    const batch = await probe(t.baseUrl, {
      headers: sessionHeaders(sessionId),
      body: [
        { jsonrpc: '2.0', id: 6, method: 'ping' },
        {
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'get_resource', arguments: {}, task: {} },
        },
      ],
    });
    expect(batch.status).toBe(200);
    expect(messageOf(batch.body)).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32601,
        message:
          'Batch member [1]: Method not found: tool "get_resource" does not run as a task (taskSupport "forbidden")',
      },
      id: null,
    });
    // Without the task it is served.
    const served = await call({
      id: 5,
      method: 'tools/call',
      params: { name: 'get_resource', arguments: { uri: 'doc:discovery' } },
    });
    expect(served.message.result).toBeDefined();
  });

  // Found by a fuzz probe: the v1 SDK answered these -32603 "Server does not support task creation".
  // MCP 2025-11-25: a receiver that declares no task capability for a request type ignores the task.
  it.each([
    ['tools/list', {}],
    ['resources/list', {}],
    ['resources/templates/list', {}],
    ['resources/read', { uri: 'doc:discovery' }],
    ['ping', {}],
  ])('a task on %s is ignored: the request is served as without it', async (method, params) => {
    const { status, message } = await call({ id: 8, method, params: { ...params, task: { ttl: 1 } } });
    expect(status).toBe(200);
    expect(message).toEqual({ jsonrpc: '2.0', id: 8, result: expect.any(Object) });
  });

  it('in a batch too, each member answered', async () => {
    const batch = await probe(t.baseUrl, {
      headers: sessionHeaders(sessionId),
      body: [
        { jsonrpc: '2.0', id: 9, method: 'tools/list', params: { task: {} } },
        { jsonrpc: '2.0', id: 10, method: 'ping', params: { task: { ttl: 5 } } },
      ],
    });
    expect(batch.status).toBe(200);
    const answers = messagesOf(batch.body);
    expect(answers.map((a) => [a.id, 'result' in a])).toEqual([
      [9, true],
      [10, true],
    ]);
  });

  // Found by a fuzz probe: on a session the SDK parsed initialize's params first and answered -32603
  // with the validator's multi-line dump; without a session the same body was already 400 -32602.
  it('an initialize with bad params on a session is 400 -32602 with one line, as without a session', async () => {
    const r = await probe(t.baseUrl, {
      headers: sessionHeaders(sessionId),
      body: { jsonrpc: '2.0', id: 11, method: 'initialize', params: {} },
    });
    expect(r.status).toBe(400);
    const { error } = messageOf(r.body) as { error: { code: number; message: string } };
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/^Invalid params: params\.protocolVersion: [^\n]+$/);
    // The session is still there.
    expect((await call({ id: 12, method: 'ping' })).message).toEqual({ jsonrpc: '2.0', id: 12, result: {} });
  });
});

describe("/mcp, stateless era: an envelope that is not an object is the SDK's 400", () => {
  it('_meta: [] → HTTP 400 -32600, as the SDK answers a malformed envelope (the pre-check answered it 200 -32602)', async () => {
    const t = await startTestApp({ STORE: 'memory' });
    try {
      const r = await probe(t.baseUrl, {
        headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: [] } },
      });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32600 } });
    } finally {
      await t.close();
    }
  });
});
