/**
 * A local session while one of its POSTs is served, with a slow chain read (CHAIN=near, a fake node that
 * delays its answer):
 * - it is not idle: the full cap's reclaim never takes its slot mid-request, and its idle time counts
 *   from the END of its last request (McpSessionRegistry.serve);
 * - ended (DELETE) mid-request, it is not brought back when the request ends;
 * - a request id whose POST ended (its client gone) while the transport still serves it stays claimed
 *   until the transport has answered it: a POST reusing it meanwhile is refused 409, and could otherwise
 *   take over the first one's answer (mcp-request-ids.ts).
 */
import * as rawHttp from 'node:http';
import { connect } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MCP_SESSION_REGISTRY } from '../../apps/api/src/mcp/mcp.di-tokens.js';
import { type McpSessionRegistry } from '../../apps/api/src/mcp/mcp-session.registry.js';
import { drainAndClose } from '../../apps/api/src/platform/lifecycle/graceful-shutdown.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { INITIALIZE, MCP_HEADERS, openRawSession, requestFrom } from './support/mcp-probe.js';
import { startSlowNearChain, type SlowNearChain } from './support/slow-near-chain.js';
import { type FakeNearRpc } from '../fake-near-rpc/fake-near-rpc.server.js';

const SLOW_MS = 2500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The app, on a fake NEAR node of its own seeded with its family. */
interface NearApp {
  readonly t: TestApp;
  readonly rpc: FakeNearRpc;
  readonly chain: SlowNearChain;
  close(): Promise<void>;
}

async function startNearApp(env: Record<string, string> = {}): Promise<NearApp> {
  const chain = await startSlowNearChain();
  const t = await startTestApp({ ...chain.env, STORE: 'memory', ...env });
  return {
    t,
    rpc: chain.rpc,
    chain,
    close: async () => {
      await t.close();
      await chain.close();
    },
  };
}

/** A passport of the family on the node, never read yet (so its first read goes to the node). */
const newMember = (near: NearApp): string => near.chain.newMember();

/** Resolves once the node has been asked for `tokenId` (the read is then in the transport's hands). */
const nodeAskedFor = (near: NearApp, tokenId: string): Promise<void> => near.chain.askedFor(tokenId);

describe('a full cap (MCP_MAX_SESSIONS=1) while a session is in a slow read', () => {
  let near: NearApp;
  let t: TestApp;
  beforeAll(async () => {
    near = await startNearApp({
      MCP_MAX_SESSIONS: '1',
      MCP_MAX_SESSIONS_PER_ADDRESS: '1',
      MCP_SESSION_RECLAIM_IDLE_MS: '1000',
    });
    t = near.t;
  });
  afterAll(async () => near?.close());
  const initializeFrom = (address: string) =>
    requestFrom(t.baseUrl, address, { method: 'POST', body: INITIALIZE });

  it("a session in a slow read keeps its slot: the full cap's reclaim refuses another client until it has idled from the END of the read", async () => {
    const client = new Client({ name: 'slow-reader', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`));
    await client.connect(transport);
    try {
      const member = newMember(near);
      near.rpc.enqueue({ kind: 'slow', delayMs: SLOW_MS });
      const started = Date.now();
      const read = client.readResource({ uri: `did:resolve:${member}` }, { timeout: 10_000 });
      await nodeAskedFor(near, member);
      // Past the reclaim time counted from the request's start, well before the node answers.
      await sleep(1300 - (Date.now() - started));
      const during = await initializeFrom('127.0.0.2');
      expect(during.status).toBe(429);
      expect(during.headers['retry-after']).toBe('1');
      const document = await read;
      expect(Date.now() - started).toBeGreaterThanOrEqual(SLOW_MS);
      expect(document.contents[0]).toMatchObject({ uri: `did:resolve:${member}` });
      expect((document.contents[0] as { text: string }).text).toContain(`did:passport:${member}`);
      // The read has just ended, more than 1 s after it began: its session idles from now on.
      const after = await initializeFrom('127.0.0.2');
      expect(after.status).toBe(429);
      await expect(client.listTools()).resolves.toEqual(
        expect.objectContaining({ tools: expect.any(Array) }),
      );
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  }, 30_000);

  // A mutation probe of 1.15.0: with the POST's end (`served()`) never called, every suite passed; its
  // session then counted as serving for good, never reclaimed nor swept, and held the slot for ever.
  // Fails on mutant: the `finally { served(); }` of a local session's POST dropped.
  it('a session whose POSTs have all been answered is reclaimable once idle: its slot goes to another client', async () => {
    const client = new Client({ name: 'answered', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`));
    await client.connect(transport);
    const sessionId = transport.sessionId;
    try {
      await expect(client.listTools()).resolves.toEqual(
        expect.objectContaining({ tools: expect.any(Array) }),
      );
      expect((await initializeFrom('127.0.0.2')).status).toBe(429);
      await sleep(1200); // idle past MCP_SESSION_RECLAIM_IDLE_MS since its last answer
      const fresh = await initializeFrom('127.0.0.2');
      expect(fresh.status).toBe(200);
      const old = await requestFrom(t.baseUrl, '127.0.0.1', {
        method: 'POST',
        headers: { 'mcp-session-id': String(sessionId), 'mcp-protocol-version': '2025-11-25' },
        body: { jsonrpc: '2.0', id: 3, method: 'tools/list' },
      });
      expect(old.status).toBe(404);
      await requestFrom(t.baseUrl, '127.0.0.2', {
        method: 'DELETE',
        headers: {
          'mcp-session-id': String(fresh.headers['mcp-session-id']),
          'mcp-protocol-version': '2025-11-25',
        },
      });
    } finally {
      await client.close();
    }
  }, 30_000);

  it('a session ended (DELETE) during a slow read is not brought back when the read ends: its slot is free', async () => {
    const client = new Client({ name: 'ended-mid-read', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`));
    await client.connect(transport);
    const sessionId = transport.sessionId;
    const member = newMember(near);
    near.rpc.enqueue({ kind: 'slow', delayMs: SLOW_MS });
    const read = client.readResource({ uri: `did:resolve:${member}` }, { timeout: 10_000 }).catch(() => null);
    await nodeAskedFor(near, member);
    await transport.terminateSession(); // DELETE while the read waits on the node
    await client.close();
    await read;
    await sleep(SLOW_MS); // the node has answered: the read's handler has ended too
    const old = await requestFrom(t.baseUrl, '127.0.0.1', {
      method: 'POST',
      headers: { 'mcp-session-id': String(sessionId), 'mcp-protocol-version': '2025-11-25' },
      body: { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    });
    expect(old.status).toBe(404);
    const fresh = await initializeFrom('127.0.0.2');
    expect(fresh.status).toBe(200);
    await requestFrom(t.baseUrl, '127.0.0.2', {
      method: 'DELETE',
      headers: {
        'mcp-session-id': String(fresh.headers['mcp-session-id']),
        'mcp-protocol-version': '2025-11-25',
      },
    });
  }, 30_000);
});

describe('a request id of a local session whose client left mid-read', () => {
  let near: NearApp;
  let t: TestApp;
  beforeAll(async () => {
    near = await startNearApp();
    t = near.t;
  });
  afterAll(async () => near?.close());

  it('a request id whose client left while the transport still serves it stays claimed until it is answered: a POST reusing it meanwhile is 409', async () => {
    const sessionId = await openRawSession(t.baseUrl);
    const headers = { ...MCP_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    const readWithId7 = (tokenId: string) => ({
      jsonrpc: '2.0',
      id: 7,
      method: 'resources/read',
      params: { uri: `did:resolve:${tokenId}` },
    });
    const post = (body: unknown) =>
      fetch(`${t.baseUrl}/mcp`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(5000),
      });
    try {
      const [first, second] = [newMember(near), newMember(near)];
      near.rpc.enqueue({ kind: 'slow', delayMs: SLOW_MS });
      const started = Date.now();
      // The client sends the read, then its connection is reset: the server's handler still waits on the
      // node. (A client that only closed its end, FIN, was seen to leave no sooner than the answer or the
      // transport's first keep-alive write, 15 s on.)
      const abandoned = rawHttp.request(`${t.baseUrl}/mcp`, { method: 'POST', headers });
      abandoned.on('error', () => undefined);
      abandoned.end(JSON.stringify(readWithId7(first)));
      await nodeAskedFor(near, first);
      expect(abandoned.socket).not.toBeNull();
      abandoned.socket?.resetAndDestroy();
      await sleep(300); // the server has seen the connection close and ended that POST
      const meanwhile = await post(readWithId7(second));
      expect(meanwhile.status).toBe(409);
      expect(await meanwhile.json()).toEqual({
        jsonrpc: '2.0',
        error: {
          code: -32600,
          message:
            'Invalid Request: id 7 belongs to a request of this session still in progress; use another id',
        },
        id: null,
      });
      expect(Date.now() - started).toBeLessThan(SLOW_MS);
      // Once the node has answered (and the transport the abandoned request), id 7 is free again.
      await sleep(SLOW_MS + 300 - (Date.now() - started));
      const later = await post(readWithId7(second));
      expect(later.status).toBe(200);
      const text = await later.text();
      expect(text).toContain(`did:passport:${second}`);
      expect(text).not.toContain(first);
    } finally {
      await fetch(`${t.baseUrl}/mcp`, { method: 'DELETE', headers }).catch(() => undefined);
    }
  }, 30_000);
});

// Every id of a batch (2025-03-26) is claimed while the batch is served, not its first only: a POST reusing
// the id of a read still in progress in the batch would take its answer over.
describe('a batch of a 2025-03-26 session in progress', () => {
  let near: NearApp;
  beforeAll(async () => {
    near = await startNearApp();
  });
  afterAll(async () => near?.close());

  it('holds every one of its request ids: a POST reusing the id of its slow read is 409', async () => {
    const { t } = near;
    const init = await fetch(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: JSON.stringify({
        ...INITIALIZE,
        params: { ...INITIALIZE.params, protocolVersion: '2025-03-26' },
      }),
    });
    await init.text();
    const headers = {
      ...MCP_HEADERS,
      'mcp-session-id': String(init.headers.get('mcp-session-id')),
      'mcp-protocol-version': '2025-03-26',
    };
    const post = (body: unknown) =>
      fetch(`${t.baseUrl}/mcp`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
    const read = (id: number, tokenId: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'resources/read',
      params: { uri: `did:resolve:${tokenId}` },
    });
    const [first, second] = [newMember(near), newMember(near)];
    near.rpc.enqueue({ kind: 'slow', delayMs: SLOW_MS });
    const batch = post([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, read(2, first)]).then(async (r) => ({
      status: r.status,
      text: await r.text(),
    }));
    await nodeAskedFor(near, first);
    const reuse = await post(read(2, second));
    expect(reuse.status).toBe(409);
    await reuse.text();
    const answered = await batch;
    expect(answered.status).toBe(200);
    expect(answered.text).toContain(`did:passport:${first}`);
    expect(answered.text).not.toContain(second);
  }, 30_000);
});

// The drain ends every event stream as the server stops accepting; a GET that reaches the app after that
// (sent on a connection busy with a slow read, so not closed as idle) is refused 503, else its new
// stream held the drain to its timeout.
describe('an event stream asked for after the drain has ended the streams', () => {
  it('is refused 503 and the drain finishes without its timeout', async () => {
    const near = await startNearApp();
    try {
      const { t } = near;
      const sessionId = await openRawSession(t.baseUrl);
      const member = newMember(near);
      near.rpc.enqueue({ kind: 'slow', delayMs: SLOW_MS });
      const { hostname, port } = new URL(t.baseUrl);
      const socket = connect(Number(port), hostname);
      const received: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => received.push(chunk));
      socket.on('error', () => undefined);
      const closed = new Promise((resolve) => socket.on('close', resolve));
      const read = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'resources/read',
        params: { uri: `did:resolve:${member}` },
      });
      const session = `Host: ${hostname}:${port}\r\nMcp-Session-Id: ${sessionId}\r\nMcp-Protocol-Version: 2025-11-25\r\n`;
      socket.write(
        `POST /mcp HTTP/1.1\r\n${session}Accept: application/json, text/event-stream\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(read)}\r\n\r\n${read}`,
      );
      await nodeAskedFor(near, member);
      const messages: string[] = [];
      const log = {
        info: (_f: object, m: string) => messages.push(m),
        warn: (_f: object, m: string) => messages.push(m),
      };
      const drained = drainAndClose(t.app, { drainDelayMs: 0, drainTimeoutMs: 8000 }, log);
      const registry = t.app.get<McpSessionRegistry>(MCP_SESSION_REGISTRY);
      while (!registry.eventStreamsEnded) await sleep(5);
      // The connection, busy with the read, is not closed as idle: the GET reaches the app.
      socket.write(`GET /mcp HTTP/1.1\r\n${session}Accept: text/event-stream\r\n\r\n`);
      await drained;
      await closed;
      const text = Buffer.concat(received).toString('latin1');
      const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
      expect(statuses).toEqual([200, 503]);
      expect(text).toContain(`did:passport:${member}`); // the read in progress was answered
      expect(messages).not.toContain('shutdown: drain timeout, closing the remaining connections');
    } finally {
      await near.close().catch(() => undefined);
    }
  }, 30_000);
});
