/**
 * A fleet session (STORE=redis) while one of its POSTs is served, with a slow chain read (CHAIN=near, a
 * fake node delaying its answer): it is not idle, so a full cap's reclaim never takes its slot
 * mid-request, and its idle time counts from the END of the request. A review of 1.14.0: the fleet
 * directory marked a session used only at a request's start, so a read longer than
 * MCP_SESSION_RECLAIM_IDLE_MS lost its slot to another address's initialize on the other instance, and
 * the session's next request got 404.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { INITIALIZE, probe, requestFrom } from '../mcp/support/mcp-probe.js';
import { startSlowNearChain, type SlowNearChain } from '../mcp/support/slow-near-chain.js';
import { startTestAppFleet, type TestAppFleet } from '../support/test-app-fleet.js';

const SLOW_MS = 2500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let chain: SlowNearChain;
let fleet: TestAppFleet;
beforeAll(async () => {
  chain = await startSlowNearChain();
  fleet = await startTestAppFleet(2, {
    ...chain.env,
    MCP_MAX_SESSIONS: '1',
    MCP_MAX_SESSIONS_PER_ADDRESS: '1',
    MCP_SESSION_RECLAIM_IDLE_MS: '1000',
  });
});
afterAll(async () => {
  await fleet?.close();
  await chain?.close();
});

/** An initialize from another address, on the other instance (B). */
const initializeOnB = () =>
  requestFrom(fleet.instances[1].baseUrl, '127.0.0.2', {
    method: 'POST',
    headers: { host: new URL(fleet.publicBaseUrl).host },
    body: INITIALIZE,
  });

it("a fleet session in a slow read on A keeps its slot: B's initialize from another address is refused until it has idled 1 s from the END of the read", async () => {
  const client = new Client({ name: 'slow-reader', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${fleet.instances[0].baseUrl}/mcp`)));
  try {
    const member = chain.newMember();
    chain.rpc.enqueue({ kind: 'slow', delayMs: SLOW_MS });
    const started = Date.now();
    const read = client.readResource({ uri: `did:resolve:${member}` }, { timeout: 10_000 });
    await chain.askedFor(member);
    // Past the reclaim time counted from the request's start, well before the node answers.
    await sleep(1300 - (Date.now() - started));
    const during = await initializeOnB();
    expect(during.status).toBe(429);
    const document = await read;
    expect(Date.now() - started).toBeGreaterThanOrEqual(SLOW_MS);
    expect((document.contents[0] as { text: string }).text).toContain(`did:passport:${member}`);
    // Still its session's (fails when the reclaim took it: 404 Session not found).
    await expect(client.listTools()).resolves.toEqual(expect.objectContaining({ tools: expect.any(Array) }));
    // Used at the end of that request: not idle for 1 s yet.
    expect((await initializeOnB()).status).toBe(429);
    // Idle 1 s from the end of its last request (not held for the serving lease): the slot is taken.
    await sleep(1200);
    const after = await initializeOnB();
    expect(after.status).toBe(200);
  } finally {
    await client.close();
  }
}, 30_000);

it("B's initialize refused while every session of the fleet is serving says Retry-After 1 s, as one instance does (not the 2 min serving lease)", async () => {
  await fleet.redis.clearState();
  const client = new Client({ name: 'slow-reader', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${fleet.instances[0].baseUrl}/mcp`)));
  try {
    const member = chain.newMember();
    chain.rpc.enqueue({ kind: 'slow', delayMs: SLOW_MS });
    const read = client.readResource({ uri: `did:resolve:${member}` }, { timeout: 10_000 });
    await chain.askedFor(member);
    const during = await initializeOnB();
    expect(during.status).toBe(429);
    // As on one instance: a slot frees no sooner than that POST has ended, which may be any moment.
    expect(during.headers['retry-after']).toBe('1');
    await read;
  } finally {
    await client.close();
  }
}, 30_000);

// A review of 1.14.1: the touch at the end of one POST set the session's last use to then, though another
// POST of the same session was still being served (the directory knew that a request was in progress, not
// how many), and so did any other request's touch (a GET, answered 405 on a fleet): a quick request beside a
// slow read left the session idle from then, and B's initialize took its slot mid-read, as in 1.14.0. One
// instance counts the requests it serves.
it.each([
  ['a quick POST (tools/list) answered', 'post'],
  ['a GET (405) answered', 'get'],
] as const)(
  "a fleet session with %s beside its slow read on A still serves that read: B's initialize is refused until 1 s after the read's end",
  async (_beside, kind) => {
    await fleet.redis.clearState();
    const client = new Client({ name: 'slow-reader', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${fleet.instances[0].baseUrl}/mcp`));
    await client.connect(transport);
    try {
      const member = chain.newMember();
      chain.rpc.enqueue({ kind: 'slow', delayMs: SLOW_MS });
      const started = Date.now();
      const read = client.readResource({ uri: `did:resolve:${member}` }, { timeout: 10_000 });
      await chain.askedFor(member);
      // A second request of the session, answered at once while the read goes on.
      if (kind === 'post')
        await expect(client.listTools()).resolves.toEqual(
          expect.objectContaining({ tools: expect.any(Array) }),
        );
      else {
        const get = await probe(fleet.instances[0].baseUrl, {
          method: 'GET',
          headers: { 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-11-25' },
        });
        expect(get.status).toBe(405);
      }
      // Past the reclaim time counted from that request's end, well before the node answers.
      await sleep(1300 - (Date.now() - started));
      const during = await initializeOnB();
      expect(during.status).toBe(429);
      expect(during.headers['retry-after']).toBe('1');
      const document = await read;
      expect(Date.now() - started).toBeGreaterThanOrEqual(SLOW_MS);
      expect((document.contents[0] as { text: string }).text).toContain(`did:passport:${member}`);
      // Still its session's (fails when the reclaim took it: 404 Session not found).
      await expect(client.listTools()).resolves.toEqual(
        expect.objectContaining({ tools: expect.any(Array) }),
      );
      expect((await initializeOnB()).status).toBe(429);
      await sleep(1200);
      expect((await initializeOnB()).status).toBe(200);
    } finally {
      await client.close().catch(() => undefined);
    }
  },
  30_000,
);
